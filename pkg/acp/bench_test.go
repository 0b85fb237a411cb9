package acp

import (
	"fmt"
	"path/filepath"
	"sort"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/backend"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// BenchmarkPromptFirstUpdate is the agent's overhead from the provider's
// first text byte to the client's first session/update: the fake
// Messages API (HTTP + SSE on loopback) writes and flushes the reply's
// first text delta, and the clock stops when the SDK's client side
// hands the agent_message_chunk to the client. In between: the Anthropic
// adapter in this process (the host runs it in its provider process: see
// cmd/magenta-host's BenchmarkACPFirstUpdate), the thread, the observer,
// the update writer and JSON-RPC over a pipe. The metric is the median.
func BenchmarkPromptFirstUpdate(b *testing.B) {
	srv := providertest.NewServer(b)
	env := map[string]string{"K": "k"}
	first := make(chan time.Time, 1)
	c := &client{answer: optionYes, onUpdate: func(n sdk.SessionNotification) {
		if n.Update.AgentMessageChunk != nil {
			select {
			case first <- time.Now():
			default:
			}
		}
	}}
	cfg := fmt.Sprintf(`{"profiles": [{"name": "wire", "provider": "anthropic", "model": "m", "baseUrl": %q, "apiKeyEnvVar": "K"}],
	  "sandbox": {"enabled": false}, "threads": {"persist": false}, "shell": {"logRoot": %q}}`, srv.URL, filepath.Join(b.TempDir(), "logs"))
	conn, _, _ := startConfig(b, backend.Factory(func(k string) string { return env[k] }, provider.DefaultRetryPolicy), b.TempDir(), cfg, c)
	sid := newSession(b, conn, b.TempDir())
	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		ch := promptAsync(conn, sid, "go")
		call := srv.Next(b)
		select { // a chunk of the last reply that came late
		case <-first:
		default:
		}
		sent := time.Now()
		call.Text("first")
		samples = append(samples, (<-first).Sub(sent))
		call.Stop("end_turn")
		if a := awaitAnswer(b, ch); a.err != nil {
			b.Fatal(a.err)
		}
	}
	b.StopTimer()
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	b.ReportMetric(float64(samples[len(samples)/2].Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(samples[len(samples)*9/10].Microseconds())/1000, "ms-p90")
}
