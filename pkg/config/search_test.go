package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSearchOption(t *testing.T) {
	ok := `{"profiles":[{"name":"a","provider":"anthropic","model":"m"}],"search":{"searxng":{"url":"http://127.0.0.1:8888/"},"anthropic":true}}`
	o, err := Decode([]byte(ok))
	assert.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:8888/", o.Search.SearXNGURL())
	assert.True(t, o.Search.AnthropicFor(o.Profiles[0]))
	assert.False(t, o.Search.AnthropicFor(Profile{Provider: ProviderOpenAI}))
	for _, bad := range []string{`""`, `"localhost:8888"`, `"ftp://x"`, `"http://x/?format=json"`} {
		_, err := Decode([]byte(`{"profiles":[{"name":"a","provider":"anthropic","model":"m"}],"search":{"searxng":{"url":` + bad + `}}}`))
		assert.ErrorContains(t, err, "search.searxng.url", bad)
	}
}
