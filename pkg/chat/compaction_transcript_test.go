package chat

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

func TestTranscriptShowsEveryKindOfBlock(t *testing.T) {
	history := []provider.Message{
		{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("fix it"), {Kind: provider.BlockImage, MediaType: "image/png"}}},
		{Role: provider.RoleAssistant, Content: []provider.Block{
			{Kind: provider.BlockThinking, Thinking: "private reasoning", Signature: "s"},
			provider.TextBlock("Looking."),
			{Kind: provider.BlockToolUse, ToolUseID: "tu_1", ToolName: "get_file", Input: json.RawMessage(`{"path":"a.go"}`)},
		}},
		{Role: provider.RoleUser, Content: []provider.Block{provider.ToolResultBlock("tu_1", strings.Repeat("x", 5000), true)}},
	}
	got := transcript(history, 100_000)
	assert.Contains(t, got, "[user]\nfix it\n[an image: PNG, 0 bytes; images are not kept after the summary]\n")
	assert.Contains(t, got, "[assistant]\nLooking.\n[tool call get_file tu_1: {\"path\":\"a.go\"}]\n")
	assert.Contains(t, got, "[tool error tu_1]\n")
	assert.NotContains(t, got, "private reasoning", "thinking is left out")
	assert.Contains(t, got, fmt.Sprintf("[… %d bytes cut …]", 5000-maxToolResultBytes))
	assert.Less(t, len(got), 3000)
}

// Over the limit, the first message and the newest ones are kept.
func TestTranscriptKeepsTheTaskAndTheNewest(t *testing.T) {
	history := []provider.Message{{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("THE TASK")}}}
	for i := range 100 {
		history = append(history,
			provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.TextBlock(fmt.Sprintf("step %d %s", i, strings.Repeat("·", 100)))}},
			provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock(fmt.Sprintf("ok %d", i))}})
	}
	got := transcript(history, 5000)
	assert.LessOrEqual(t, len(got), 5000+200)
	assert.True(t, strings.HasPrefix(got, "[user]\nTHE TASK\n"))
	assert.Contains(t, got, "earlier messages left out")
	assert.Contains(t, got, "step 99")
	assert.NotContains(t, got, "step 50 ")
	assert.True(t, utf8.ValidString(got))
}

func TestCutMiddleKeepsRunesWhole(t *testing.T) {
	s := strings.Repeat("é", 1000)
	got := cutMiddle(s, 101)
	assert.True(t, utf8.ValidString(got))
	assert.Contains(t, got, "bytes cut")
	assert.Equal(t, "short", cutMiddle("short", 10))
}

// A profile's compactProfile writes the summary.
func TestCompactProfileWritesTheSummary(t *testing.T) {
	h := newCompactHarness(t,
		config.Profile{Name: "main", Provider: "anthropic", Model: "big-model", CompactProfile: "cheap"},
		config.Profile{Name: "cheap", Provider: "openai", Model: "small-model", BaseURL: "http://127.0.0.1:1/v1"})
	h.exchange(t, "task", "done", 10)
	h.app.Compact()
	c := h.fake.Next(t)
	assert.Equal(t, "small-model", c.Request.Model)
	assert.Equal(t, provider.Reasoning{}, c.Request.Reasoning)
	c.Reply("summary")
	h.screen.waitForText(t, "▸ context compacted")
}
