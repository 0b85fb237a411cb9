package provider

import (
	"fmt"
	"time"

	"github.com/magenta-nvim/magenta/pkg/config"
)

// Spec is what an adapter is built from: which wire protocol, where, with
// which key, and how long a stream may stay silent. It is comparable, so
// a process serving several threads can keep one adapter (and its
// connection pool) per Spec.
type Spec struct {
	// Provider is config.ProviderAnthropic or config.ProviderOpenAI.
	Provider string `json:"provider"`
	// BaseURL is the profile's baseUrl; empty selects the provider's own.
	BaseURL string `json:"baseUrl,omitempty"`
	// APIKey is the key read from the profile's variable; it may be empty
	// for an OpenAI-compatible local server.
	APIKey string `json:"apiKey,omitempty"`
	// IdleTimeout is the watchdog of IdleTimeoutTransport.
	IdleTimeout time.Duration `json:"idleTimeout"`
}

// AdapterFunc builds the adapter for a Spec. The host's builds a client of
// the provider process (package remote); tests and that process build the
// SDK adapters themselves (package backend).
type AdapterFunc func(Spec) (Provider, error)

// SpecFor returns the Spec of profile p, reading its key with getenv. It
// fails with *MissingKeyError when a required key is unset, and on an
// unknown provider.
func SpecFor(p config.Profile, getenv func(string) string) (Spec, error) {
	switch p.Provider {
	case config.ProviderAnthropic, config.ProviderOpenAI:
	default:
		return Spec{}, fmt.Errorf("profile %q: unknown provider %q", p.Name, p.Provider)
	}
	envVar, required := p.KeyEnvVar()
	key := getenv(envVar)
	if key == "" && required {
		return Spec{}, &MissingKeyError{Profile: p.Name, EnvVar: envVar}
	}
	idle := DefaultIdleTimeout
	if p.IdleTimeout > 0 {
		idle = time.Duration(p.IdleTimeout * float64(time.Second))
	}
	return Spec{Provider: p.Provider, BaseURL: p.BaseURL, APIKey: key, IdleTimeout: idle}, nil
}

// Factory returns a chat.ProviderFactory-compatible function: the profile's
// Spec (keys read with getenv: os.Getenv in the host, a map in tests),
// built by build and wrapped in the retry policy. Retrying stays with the
// caller of build, so a retry is never sent twice by two layers.
func Factory(getenv func(string) string, policy RetryPolicy, build AdapterFunc) func(config.Profile) (Provider, error) {
	return func(p config.Profile) (Provider, error) {
		spec, err := SpecFor(p, getenv)
		if err != nil {
			return nil, err
		}
		adapter, err := build(spec)
		if err != nil {
			return nil, fmt.Errorf("profile %q: %w", p.Name, err)
		}
		return WithRetry(adapter, policy), nil
	}
}
