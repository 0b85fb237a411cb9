package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// TestServeSurvivesBadCallsAndPanics: a call without a request and an
// adapter that panics each end their own stream with an error; the
// process goes on serving, and ends cleanly at EOF.
func TestServeSurvivesBadCallsAndPanics(t *testing.T) {
	build := func(s provider.Spec) (provider.Provider, error) {
		return provider.ProviderFunc(func(ctx context.Context, req provider.Request, emit func(provider.Event)) (*provider.Response, error) {
			if req.Model == "panic" {
				panic("adapter bug")
			}
			emit(provider.TextDelta{Text: "hi"})
			return &provider.Response{StopReason: provider.StopEndTurn}, nil
		}), nil
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var log strings.Builder
	served := make(chan error, 1)
	go func() { served <- Serve(inR, outW, &log, build); _ = outW.Close() }()
	replies := bufio.NewScanner(outR)
	next := func() reply {
		require.True(t, replies.Scan(), "a reply")
		var r reply
		require.NoError(t, json.Unmarshal(replies.Bytes(), &r))
		return r
	}
	send := func(c call) {
		line, err := marshalCall(c)
		require.NoError(t, err)
		_, err = inW.Write(line)
		require.NoError(t, err)
	}
	assert.Equal(t, Protocol, next().Hello.Protocol)

	send(call{ID: 1})
	r := next()
	assert.Equal(t, uint64(1), r.ID)
	assert.Contains(t, r.Error.Message, "without spec or request")

	send(call{ID: 2, Spec: &provider.Spec{Provider: "x"}, Request: &provider.Request{Model: "panic"}})
	r = next()
	require.NotNil(t, r.Error)
	err := r.Error.decode()
	assert.ErrorContains(t, err, "the provider adapter failed: adapter bug")
	assert.False(t, provider.IsRetryable(err))

	send(call{ID: 3, Spec: &provider.Spec{Provider: "x"}, Request: &provider.Request{Model: "m"}})
	assert.Equal(t, &wireEvent{Type: eventText, Text: "hi"}, next().Event)
	assert.Equal(t, provider.StopEndTurn, next().Response.StopReason)

	require.NoError(t, inW.Close())
	assert.NoError(t, <-served)
	assert.Contains(t, log.String(), "panic in a provider stream: adapter bug")
}

// TestMarshalCallNamesBadInput: a conversation that cannot be encoded
// (a tool input that is not JSON) is refused with a reason, not sent.
func TestMarshalCallNamesBadInput(t *testing.T) {
	req := provider.Request{Messages: []provider.Message{{Role: provider.RoleAssistant, Content: []provider.Block{
		{Kind: provider.BlockToolUse, ToolUseID: "t", ToolName: "x", Input: json.RawMessage("{not json")}}}}}
	_, err := marshalCall(call{ID: 1, Spec: &provider.Spec{}, Request: &req})
	assert.ErrorContains(t, err, "could not encode the request for the provider process")
}

// TestCodeCrossesUnchanged: text and tool input full of <, > and & come
// back byte for byte (json.Marshal would escape them, and rewrite them
// inside a raw tool input).
func TestCodeCrossesUnchanged(t *testing.T) {
	resp := provider.Response{Message: provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{
		provider.TextBlock("if a < b && c > d { return }"),
		{Kind: provider.BlockToolUse, ToolUseID: "t", ToolName: "bash_command", Input: json.RawMessage(`{"command":"make && ./run <in >out"}`)},
	}}}
	line, err := encodeLine(reply{ID: 1, Response: &resp})
	require.NoError(t, err)
	assert.Contains(t, string(line), "make && ./run <in >out")
	var back reply
	require.NoError(t, json.Unmarshal(line, &back))
	assert.Equal(t, resp, *back.Response)
}
