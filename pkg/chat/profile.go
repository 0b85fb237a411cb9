package chat

import "github.com/magenta-nvim/magenta/pkg/config"

// CurrentProfile returns the profile :Magenta profile chose last (the
// active thread's and that of new threads), for requests outside a
// thread such as inline edits; false once the app is closed.
func (a *App) CurrentProfile() (config.Profile, bool) {
	ch := make(chan config.Profile, 1)
	a.do(func() { ch <- a.profile })
	select {
	case p := <-ch:
		return p, true
	case <-a.done:
		return config.Profile{}, false
	}
}
