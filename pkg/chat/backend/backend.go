// Package backend builds the provider a profile names: it picks the
// adapter, reads the API key from the environment, and wraps the result
// in the retry policy.
package backend

import (
	"fmt"
	"net/http"
	"time"

	"github.com/magenta-nvim/magenta/pkg/chat/provider"
	"github.com/magenta-nvim/magenta/pkg/chat/provider/anthropic"
	"github.com/magenta-nvim/magenta/pkg/chat/provider/openai"
	"github.com/magenta-nvim/magenta/pkg/config"
)

// Factory returns a chat.ProviderFactory-compatible function reading keys
// with getenv (os.Getenv in the host; a map in tests).
func Factory(getenv func(string) string, policy provider.RetryPolicy) func(config.Profile) (provider.Provider, error) {
	return func(p config.Profile) (provider.Provider, error) {
		envVar, required := p.KeyEnvVar()
		key := getenv(envVar)
		if key == "" && required {
			return nil, &provider.MissingKeyError{Profile: p.Name, EnvVar: envVar}
		}
		var (
			adapter provider.Provider
			err     error
		)
		client := &http.Client{Transport: provider.IdleTimeoutTransport(nil, idleTimeout(p))}
		switch p.Provider {
		case config.ProviderAnthropic:
			adapter, err = anthropic.New(anthropic.Options{BaseURL: p.BaseURL, APIKey: key, HTTPClient: client})
		case config.ProviderOpenAI:
			adapter, err = openai.New(openai.Options{BaseURL: p.BaseURL, APIKey: key, HTTPClient: client})
		default:
			return nil, fmt.Errorf("profile %q: unknown provider %q", p.Name, p.Provider)
		}
		if err != nil {
			return nil, fmt.Errorf("profile %q: %w", p.Name, err)
		}
		return provider.WithRetry(adapter, policy), nil
	}
}

// idleTimeout is the profile's idleTimeout (seconds), or the default.
func idleTimeout(p config.Profile) time.Duration {
	if p.IdleTimeout > 0 {
		return time.Duration(p.IdleTimeout * float64(time.Second))
	}
	return provider.DefaultIdleTimeout
}
