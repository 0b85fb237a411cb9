package config

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDecodeThinkingAndCompaction(t *testing.T) {
	const a = `{"name":"a","provider":"anthropic","model":"m"`
	const o = `{"name":"o","provider":"openai","model":"m"`
	tests := []decodeCase{
		{`{"profiles":[` + a + `,"thinking":{"budgetTokens":4000}}]}`, ""},
		{`{"profiles":[` + a + `,"thinking":{"budgetTokens":100}}]}`, "thinking.budgetTokens: must be at least 1024, got 100"},
		{`{"profiles":[` + o + `,"thinking":{"budgetTokens":4000}}]}`, "thinking: only anthropic profiles"},
		{`{"profiles":[` + o + `,"reasoningEffort":"high"}]}`, ""},
		{`{"profiles":[` + o + `,"reasoningEffort":"max"}]}`, `reasoningEffort: "max" is not one of low, medium, high`},
		{`{"profiles":[` + a + `,"reasoningEffort":"low"}]}`, "reasoningEffort: only openai profiles"},
		{`{"profiles":[` + a + `,"contextWindow":100000,"compactAt":0.5,"compactProfile":"o"},` + o + `}]}`, ""},
		{`{"profiles":[` + a + `,"contextWindow":-1}]}`, "contextWindow: must be a positive"},
		{`{"profiles":[` + a + `,"compactAt":1.5}]}`, "compactAt: must be a fraction"},
		{`{"profiles":[` + a + `,"compactProfile":"nope"}]}`, `compactProfile: there is no profile "nope"`},
	}
	assertDecodes(t, tests)
}

func TestContextWindows(t *testing.T) {
	tests := []struct {
		p         Profile
		window    int
		threshold int
	}{
		{Profile{Model: "claude-sonnet-4-5"}, 200_000, 160_000},
		{Profile{Model: "claude-opus-4-1-20250805"}, 200_000, 160_000},
		{Profile{Model: "gpt-4o-mini"}, 128_000, 102_400},
		{Profile{Model: "gpt-4.1-nano"}, 1_047_576, 838_060},
		{Profile{Model: "o1-mini"}, 128_000, 102_400},
		{Profile{Model: "o3"}, 200_000, 160_000},
		{Profile{Model: "llama3.1:8b"}, 0, 0},
		{Profile{Model: "llama3.1:8b", ContextWindow: 8192, CompactAt: 0.5}, 8192, 4096},
		{Profile{Model: "claude-sonnet-4-5", ContextWindow: 1_000_000}, 1_000_000, 800_000},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.window, tt.p.ContextWindowFor(), tt.p.Model)
		assert.Equal(t, tt.threshold, tt.p.CompactThreshold(), tt.p.Model)
	}
}

// doc/magenta.txt lists every known context window with its size.
func TestKnownContextWindowsAreDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../doc/magenta.txt")
	assert.NoError(t, err)
	text := string(doc)
	i := strings.Index(text, "Known context windows")
	assert.GreaterOrEqual(t, i, 0)
	table := text[i:]
	for _, k := range KnownContextWindows {
		assert.Contains(t, table, k.Prefix+"*", "the prefix %s is documented", k.Prefix)
		assert.Contains(t, table, strconv.Itoa(k.Tokens))
	}
}
