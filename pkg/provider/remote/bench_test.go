package remote_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/magenta-nvim/magenta/pkg/proctest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/backend"
	"github.com/magenta-nvim/magenta/pkg/provider/remote"
)

// oneTextReply is a whole Messages API stream answering "hello".
const oneTextReply = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n" +
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hello\"}}\n\n" +
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
	"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":2}}\n\n" +
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

// BenchmarkFirstText measures a request from Stream to its first text
// event, against a loopback Messages API answering at once: the adapter
// in this process (what the host did before the provider process), the
// provider process already running (every request after the first), and
// a cold start (a new process per request: the first of a session). The
// warm case also reports the provider process's resident memory.
func BenchmarkFirstText(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("content-type", "text/event-stream")
		fmt.Fprint(w, oneTextReply)
	}))
	defer srv.Close()
	spec := provider.Spec{Provider: "anthropic", BaseURL: srv.URL, APIKey: "k", IdleTimeout: time.Minute}
	firstText := func(b *testing.B, p provider.Provider) time.Duration {
		start := time.Now()
		var at time.Duration
		_, err := p.Stream(context.Background(), request("hi"), func(e provider.Event) {
			if _, ok := e.(provider.TextDelta); ok && at == 0 {
				at = time.Since(start)
			}
		})
		if err != nil || at == 0 {
			b.Fatalf("err %v, first text at %v", err, at)
		}
		return at
	}
	report := func(b *testing.B, total time.Duration) {
		b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "first-text-ms")
	}
	b.Run("in-process", func(b *testing.B) {
		p, err := backend.Adapter(spec)
		if err != nil {
			b.Fatal(err)
		}
		var total time.Duration
		for i := 0; i < b.N; i++ {
			total += firstText(b, p)
		}
		report(b, total)
	})
	b.Run("process-warm", func(b *testing.B) {
		client := remote.NewClient(providerBin, 0)
		defer client.Close()
		p, err := client.Adapter(spec)
		if err != nil {
			b.Fatal(err)
		}
		firstText(b, p)
		var total time.Duration
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			total += firstText(b, p)
		}
		b.StopTimer()
		report(b, total)
		b.ReportMetric(vmRSSKiB(b, client.PID()), "provider-rss-KiB")
	})
	b.Run("process-cold", func(b *testing.B) {
		var total time.Duration
		for i := 0; i < b.N; i++ {
			client := remote.NewClient(providerBin, 0)
			p, err := client.Adapter(spec)
			if err != nil {
				b.Fatal(err)
			}
			total += firstText(b, p)
			b.StopTimer()
			client.Close()
			b.StartTimer()
		}
		report(b, total)
	})
}

func vmRSSKiB(b *testing.B, pid int) float64 {
	kib, err := proctest.StatusKiB(pid, "VmRSS")
	if err != nil {
		b.Fatal(err)
	}
	return float64(kib)
}
