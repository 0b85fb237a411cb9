// Package backend builds the SDK adapters in this process: Adapter picks
// the one a Spec names, with the idle watchdog on its HTTP client, and
// Factory turns profiles into retried providers with it.
//
// The host does not link this package (it is what links the provider
// SDKs, ~25 MB of binary and ~8 MiB resident at start); it runs the same
// adapters in the provider process (cmd/magenta-provider, package remote).
// Tests of the adapters' behaviour behind the chat use Factory directly.
package backend

import (
	"fmt"
	"net/http"

	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/anthropic"
	"github.com/magenta-nvim/magenta/pkg/provider/openai"
)

// Factory builds the adapters in this process; see provider.Factory.
func Factory(getenv func(string) string, policy provider.RetryPolicy) func(config.Profile) (provider.Provider, error) {
	return provider.Factory(getenv, policy, Adapter)
}

// Adapter builds the bare adapter (no retries) a Spec names.
func Adapter(s provider.Spec) (provider.Provider, error) {
	idle := s.IdleTimeout
	if idle <= 0 {
		idle = provider.DefaultIdleTimeout
	}
	client := &http.Client{Transport: provider.IdleTimeoutTransport(nil, idle)}
	switch s.Provider {
	case config.ProviderAnthropic:
		return anthropic.New(anthropic.Options{BaseURL: s.BaseURL, APIKey: s.APIKey, HTTPClient: client})
	case config.ProviderOpenAI:
		return openai.New(openai.Options{BaseURL: s.BaseURL, APIKey: s.APIKey, HTTPClient: client})
	}
	return nil, fmt.Errorf("unknown provider %q", s.Provider)
}
