package child

import "time"

// SetTimeout replaces Timeout until the returned function is called.
// Not safe while conversions run.
func SetTimeout(d time.Duration) (restore func()) {
	old := timeout
	timeout = d
	return func() { timeout = old }
}
