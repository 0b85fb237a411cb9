package acp

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/headless"
)

// FuzzServe feeds the agent arbitrary input as its client: whatever
// arrives, it neither panics nor hangs, and returns at the end of it.
// (No API key is set, so no session starts a thread.)
func FuzzServe(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"x","prompt":[{"type":"text","text":"hi"}]}}`,
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"x"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"session/load","params":{"sessionId":"../x","cwd":"relative","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"initialize"}`,
		`{"jsonrpc":"2.0","id":1e999,"method":"initialize","params":{}}`,
		"\x00\xff{",
	} {
		f.Add([]byte(seed + "\n"))
	}
	opts, problems := headless.DecodeConfig([]byte(`{"profiles": [{"name": "p", "provider": "anthropic", "model": "m", "apiKeyEnvVar": "MAGENTA_FUZZ_NO_KEY"}], "sandbox": {"enabled": false}}`))
	require.Empty(f, problems)
	f.Fuzz(func(t *testing.T, in []byte) {
		done := make(chan error, 1)
		go func() {
			done <- Serve(context.Background(), bytes.NewReader(in), io.Discard, Deps{Options: opts, Getenv: func(string) string { return "" }})
		}()
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Fatalf("the agent did not return at the end of its input %q", in)
		}
	})
}
