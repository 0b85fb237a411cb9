package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// decodeCase is options JSON and the error Decode must give ("" for none).
type decodeCase struct{ json, wantErr string }

func assertDecodes(t *testing.T, tests []decodeCase) {
	t.Helper()
	for _, tt := range tests {
		_, err := Decode([]byte(tt.json))
		if tt.wantErr == "" {
			assert.NoError(t, err, tt.json)
		} else {
			assert.ErrorContains(t, err, tt.wantErr, tt.json)
		}
	}
}

func TestDecode(t *testing.T) {
	tests := []decodeCase{
		{`{"profiles":[{"name":"a","provider":"anthropic","model":"m"}]}`, ""},
		{`{"profiles":[]}`, "profiles: at least one profile is required"},
		{`{"profiles":[{"name":"","provider":"anthropic","model":"m"}]}`, "profiles[1].name: must be a non-empty string"},
		{`{"profiles":[{"name":"a","provider":"anthropic","model":"m"},{"name":"a","provider":"openai","model":"m"}]}`, `profiles[2].name: "a" is used twice`},
		{`{"profiles":[{"name":"a","provider":"gemini","model":"m"}]}`, `profiles[1].provider: "gemini" is not one of`},
		{`{"profiles":[{"name":"a","provider":"openai","model":""}]}`, "profiles[1].model: must be a non-empty string"},
		{`{"profiles":[{"name":"a","provider":"openai","model":"m","baseUrl":"localhost:1"}]}`, "baseUrl: \"localhost:1\" must start with http:// or https://"},
		{`{"profiles":[{"name":"a","provider":"openai","model":"m","maxTokens":-1}]}`, "maxTokens: must be positive"},
		{`{"profiles":[{"name":"a","provider":"openai","model":"m","idleTimeout":-1}]}`, "idleTimeout: must be positive"},
		{`{"profiles":[{"name":"a","provider":"openai","model":"m","pricing":{"input":3,"output":15,"cacheRead":0.3,"cacheWrite":3.75}}]}`, ""},
		{`{"profiles":[{"name":"a","provider":"openai","model":"m","pricing":{"input":0,"output":0}}]}`, ""},
		{`{"profiles":[{"name":"a","provider":"openai","model":"m","pricing":{"input":-1,"output":15}}]}`, "profiles[1].pricing.input: must be a non-negative number"},
		{`{"profiles":[{"name":"a","provider":"openai","model":"m","pricing":{"input":1,"output":1,"cacheWrite":-0.5}}]}`, "profiles[1].pricing.cacheWrite: must be a non-negative number"},
		{`{"profiles":[{"name":"a","provider":"openai","model":"m","pricing":{"input":"3"}}]}`, "magenta options: json"},
		{`{"profiles":[{"name":"a","provider":"openai","model":"m"}],"shell":{"interactive":"always"}}`, ""},
		{`{"profiles":[{"name":"a","provider":"openai","model":"m"}],"shell":{"interactive":"sometimes"}}`, `shell.interactive: "sometimes" is not one of "model", "always", "never"`},
		{`{"profiles":"x"}`, "magenta options: json"},
		{`not json`, "magenta options:"},
	}
	assertDecodes(t, tests)
}

func TestKeyEnvVar(t *testing.T) {
	tests := []struct {
		p        Profile
		name     string
		required bool
	}{
		{Profile{Provider: ProviderAnthropic}, "ANTHROPIC_API_KEY", true},
		{Profile{Provider: ProviderOpenAI}, "OPENAI_API_KEY", true},
		{Profile{Provider: ProviderOpenAI, BaseURL: "http://localhost:11434/v1"}, "OPENAI_API_KEY", false},
		{Profile{Provider: ProviderOpenAI, BaseURL: "http://x/v1", APIKeyEnvVar: "GROQ_KEY"}, "GROQ_KEY", true},
	}
	for _, tt := range tests {
		name, required := tt.p.KeyEnvVar()
		assert.Equal(t, tt.name, name)
		assert.Equal(t, tt.required, required)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"profiles":[{"name":"a","provider":"anthropic","model":"m"}]}`))
	f.Add([]byte(`{"profiles":[{}],"logLevel":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := Decode(data)
		if err == nil && len(o.Profiles) == 0 {
			t.Fatal("valid options without a profile")
		}
	})
}

// A cache price left out costs as an uncached input token.
func TestPricingCachePricesDefaultToInput(t *testing.T) {
	o, err := Decode([]byte(`{"profiles":[{"name":"a","provider":"anthropic","model":"m","pricing":{"input":3,"output":15,"cacheRead":0.3}}]}`))
	assert.NoError(t, err)
	p := o.Profiles[0].Pricing
	assert.Equal(t, 0.3, p.CacheReadPrice())
	assert.Equal(t, 3.0, p.CacheWritePrice())
}
