package guard

import "sync"

// Remembered holds what the user allowed with ALWAYS, by kind ("bash")
// and exact subject. Safe for concurrent use.
type Remembered struct {
	mu  sync.Mutex
	set map[[2]string]bool
}

// NewRemembered returns an empty set.
func NewRemembered() *Remembered { return &Remembered{set: map[[2]string]bool{}} }

// Remember records subject as always allowed for kind.
func (r *Remembered) Remember(kind, subject string) {
	r.mu.Lock()
	r.set[[2]string{kind, subject}] = true
	r.mu.Unlock()
}

// Has reports whether subject was always allowed for kind.
func (r *Remembered) Has(kind, subject string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.set[[2]string{kind, subject}]
}
