package config

import (
	"fmt"
	"time"
)

// DefaultThreadMaxAgeDays is how long a saved thread is kept after its
// last activity unless threads.maxAge says otherwise.
const DefaultThreadMaxAgeDays = 90

// Threads configures saved threads: { persist = true, maxAge = days }.
type Threads struct {
	// Persist saves threads under stdpath("data"); nil means true.
	Persist *bool `json:"persist,omitempty"`
	// MaxAge is how many days a thread is kept after its last activity;
	// nil: DefaultThreadMaxAgeDays; 0: forever.
	MaxAge *float64 `json:"maxAge,omitempty"`
}

// Persisted reports whether threads are saved.
func (t Threads) Persisted() bool { return t.Persist == nil || *t.Persist }

// MaxAgeDuration is how long saved threads are kept (0: forever).
func (t Threads) MaxAgeDuration() time.Duration {
	days := float64(DefaultThreadMaxAgeDays)
	if t.MaxAge != nil {
		days = *t.MaxAge
	}
	return time.Duration(days * float64(24*time.Hour))
}

func (t Threads) validate() error {
	if t.MaxAge != nil && !(*t.MaxAge >= 0 && *t.MaxAge < 1e6) {
		return fmt.Errorf("magenta options: threads.maxAge: must be a number of days, 0 or more (0 keeps threads forever), got %v", *t.MaxAge)
	}
	return nil
}
