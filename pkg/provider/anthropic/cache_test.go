package anthropic

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// The cache fields of message_start reach Usage as parts of the whole
// prompt; message_delta's cumulative counts replace earlier ones.
func TestStreamUsageReportsCacheReadsAndWrites(t *testing.T) {
	p := streamingProvider(t, func(s *sse) {
		s.messageStartCached(12, 3000, 450)
		s.textStart(0)
		s.textDelta(0, "ok")
		s.blockStop(0)
		s.event("message_delta", obj{"type": "message_delta",
			"delta": obj{"stop_reason": "end_turn", "stop_sequence": nil},
			"usage": obj{"output_tokens": 42, "input_tokens": 12, "cache_read_input_tokens": 3000, "cache_creation_input_tokens": 460}})
		s.messageStop()
	})
	_, resp, err := collect(t, p, simpleRequest())
	require.NoError(t, err)
	assert.Equal(t, provider.Usage{InputTokens: 12 + 3000 + 460, OutputTokens: 42, CacheReadTokens: 3000, CacheWriteTokens: 460}, resp.Usage)
}

// recordingProvider returns a provider whose server keeps every request
// body and answers each with a short text message.
func recordingProvider(t testing.TB) (provider.Provider, func() [][]byte) {
	t.Helper()
	var mu sync.Mutex
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, body)
		mu.Unlock()
		startSSE(w).textMessage("end_turn", "ok")
	}))
	t.Cleanup(srv.Close)
	p, err := New(Options{BaseURL: srv.URL, APIKey: testKey, HTTPClient: srv.Client()})
	require.NoError(t, err)
	return p, func() [][]byte {
		mu.Lock()
		defer mu.Unlock()
		return append([][]byte(nil), bodies...)
	}
}

// agentSession plays a scripted agent conversation of turns requests
// through p: each turn the model calls a tool, and the next request sends
// its call and result back, as the chat loop does.
func agentSession(t testing.TB, p provider.Provider, turns int) {
	t.Helper()
	req := provider.Request{
		Model:  "claude-test",
		System: "You are a coding agent. " + strings.Repeat("Follow the project's rules. ", 40),
		Tools: []provider.ToolSpec{
			{Name: "read_file", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
			{Name: "bash", Description: "Run a command.", InputSchema: json.RawMessage(`{"type":"object","properties":{"cmd":{"type":"string"}}}`)},
		},
		Messages: []provider.Message{{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("Fix the failing test.")}}},
	}
	for i := range turns {
		_, _, err := collect(t, p, req)
		require.NoError(t, err)
		id := fmt.Sprintf("toolu_%02d", i)
		req.Messages = append(req.Messages,
			provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{
				provider.TextBlock(fmt.Sprintf("Step %d: reading.", i)),
				{Kind: provider.BlockToolUse, ToolUseID: id, ToolName: "read_file", Input: json.RawMessage(fmt.Sprintf(`{"path":"f%d.go"}`, i))},
			}},
			provider.Message{Role: provider.RoleUser, Content: []provider.Block{
				provider.ToolResultBlock(id, fmt.Sprintf("package f%d\n", i)+strings.Repeat("// line of code\n", 30), false),
			}})
	}
}

// wireRequest is the part of a request body that prompt caching concerns,
// each piece kept as the bytes that were sent.
type wireRequest struct {
	Tools    []json.RawMessage `json:"tools"`
	System   []json.RawMessage `json:"system"`
	Messages []struct {
		Role    string            `json:"role"`
		Content []json.RawMessage `json:"content"`
	} `json:"messages"`
}

func parseWire(t testing.TB, body []byte) wireRequest {
	t.Helper()
	var w wireRequest
	require.NoError(t, json.Unmarshal(body, &w))
	return w
}

func hasBreakpoint(t *testing.T, raw json.RawMessage) bool {
	t.Helper()
	var v struct {
		CacheControl *struct {
			Type string `json:"type"`
		} `json:"cache_control"`
	}
	require.NoError(t, json.Unmarshal(raw, &v))
	if v.CacheControl == nil {
		return false
	}
	require.Equal(t, "ephemeral", v.CacheControl.Type)
	return true
}

// breakpoints lists where a request body carries cache_control, as
// "tools[i]", "system[i]" or "messages[i][j]".
func breakpoints(t *testing.T, w wireRequest) []string {
	t.Helper()
	var at []string
	for i, tl := range w.Tools {
		if hasBreakpoint(t, tl) {
			at = append(at, fmt.Sprintf("tools[%d]", i))
		}
	}
	for i, s := range w.System {
		if hasBreakpoint(t, s) {
			at = append(at, fmt.Sprintf("system[%d]", i))
		}
	}
	for i, m := range w.Messages {
		for j, b := range m.Content {
			if hasBreakpoint(t, b) {
				at = append(at, fmt.Sprintf("messages[%d][%d]", i, j))
			}
		}
	}
	return at
}

// breakpointMark is how the SDK serialises a breakpoint inside a block.
const breakpointMark = `"cache_control":{"type":"ephemeral"},`

// cachedPrefix is the serialised prefix the prompt cache hashes up to a
// breakpoint at the end of message m, in the API's order: tools, system,
// then messages 0..m, each as the bytes sent. The breakpoint markers
// themselves are left out: they say where to cache, are not content, and
// must move as the conversation grows (the API allows four).
func cachedPrefix(t testing.TB, w wireRequest, m int) string {
	t.Helper()
	var b strings.Builder
	for _, tl := range w.Tools {
		b.Write(tl)
	}
	for _, s := range w.System {
		b.Write(s)
	}
	for _, msg := range w.Messages[:m+1] {
		b.WriteString(msg.Role)
		for _, blk := range msg.Content {
			require.LessOrEqual(t, strings.Count(string(blk), `"cache_control"`), strings.Count(string(blk), breakpointMark))
			b.WriteString(strings.ReplaceAll(string(blk), breakpointMark, ""))
		}
	}
	return b.String()
}

// On the wire, every request marks the last tool, the system prompt, the
// last message and the previous request's last message; and each request
// repeats the one before it byte for byte (but for moved markers) up to
// that earlier breakpoint, so the API can read the cache it wrote.
func TestCacheBreakpointsMoveAndPrefixIsStable(t *testing.T) {
	p, bodies := recordingProvider(t)
	agentSession(t, p, 30)
	got := bodies()
	require.Len(t, got, 30)

	assert.Equal(t, []string{"tools[1]", "system[0]", "messages[0][0]"}, breakpoints(t, parseWire(t, got[0])))
	assert.Equal(t, []string{"tools[1]", "system[0]", "messages[0][0]", "messages[2][0]"}, breakpoints(t, parseWire(t, got[1])))
	assert.Equal(t, []string{"tools[1]", "system[0]", "messages[2][0]", "messages[4][0]"}, breakpoints(t, parseWire(t, got[2])))

	for i := 1; i < len(got); i++ {
		prev, cur := parseWire(t, got[i-1]), parseWire(t, got[i])
		lastPrev := len(prev.Messages) - 1
		assert.Len(t, breakpoints(t, cur), 4, "the API allows at most four")
		// The previous request's last breakpoint is at the same place in
		// this one.
		blocks := cur.Messages[lastPrev].Content
		assert.True(t, hasBreakpoint(t, blocks[len(blocks)-1]))
		// Tools and system: the very same bytes, markers included.
		assert.Equal(t, prev.Tools, cur.Tools)
		assert.Equal(t, prev.System, cur.System)
		assert.Equal(t, cachedPrefix(t, prev, lastPrev), cachedPrefix(t, cur, lastPrev),
			"request %d does not repeat request %d's bytes up to its last breakpoint", i+1, i)
		assert.Greater(t, len(cachedPrefix(t, cur, lastPrev)), len(cachedPrefix(t, prev, max(lastPrev-2, -1))), "the cached prefix grows")
	}
}

// A request's last message may end in a block the API rejects and the
// adapter drops (empty text); the breakpoint goes on the last block sent.
func TestCacheBreakpointSkipsDroppedBlocks(t *testing.T) {
	params, err := buildParams(provider.Request{Messages: []provider.Message{
		{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("a"), provider.TextBlock("")}},
	}})
	require.NoError(t, err)
	b, err := json.Marshal(params.Messages)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"role":"user","content":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}]}]`, string(b))
}

// BenchmarkCachedShareOfSession plays a scripted 30-turn agent session and
// reports the share of request bytes that sit before the previous
// request's last breakpoint, that is, what the API can read from the
// cache (the first request counts its tools and system prompt).
func BenchmarkCachedShareOfSession(b *testing.B) {
	const turns = 30
	var cached, total int
	for range b.N {
		p, bodies := recordingProvider(b)
		agentSession(b, p, turns)
		sent := bodies()
		cached, total = 0, 0
		for i, body := range sent {
			total += len(body)
			upTo := -1 // the first request: tools and system only
			if i > 0 {
				upTo = len(parseWire(b, sent[i-1]).Messages) - 1
			}
			cached += len(cachedPrefix(b, parseWire(b, body), upTo))
		}
	}
	b.ReportMetric(float64(cached)/float64(total)*100, "%cached")
	b.ReportMetric(float64(total)/turns, "bytes/request")
}
