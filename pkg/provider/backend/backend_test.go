package backend

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

func TestFactory(t *testing.T) {
	env := map[string]string{"ANTHROPIC_API_KEY": "k"}
	f := Factory(func(k string) string { return env[k] }, provider.RetryPolicy{})

	_, err := f(config.Profile{Name: "c", Provider: "anthropic", Model: "m"})
	require.NoError(t, err)

	_, err = f(config.Profile{Name: "g", Provider: "openai", Model: "m"})
	var missing *provider.MissingKeyError
	require.True(t, errors.As(err, &missing))
	assert.Contains(t, err.Error(), "set the environment variable OPENAI_API_KEY")

	_, err = f(config.Profile{Name: "local", Provider: "openai", Model: "m", BaseURL: "http://127.0.0.1:11434/v1"})
	require.NoError(t, err, "a local server needs no key")

	_, err = f(config.Profile{Name: "x", Provider: "nope", Model: "m", APIKeyEnvVar: "ANTHROPIC_API_KEY"})
	assert.ErrorContains(t, err, `unknown provider "nope"`)
}
