package threadstore

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// conversation returns n messages of a typical agent session: a user
// request, a reply with text and a tool call, its result, and so on.
// payload is the bytes of text and tool input/output they carry.
func conversation(n int) (msgs []provider.Message, payload int) {
	text := strings.Repeat("word ", 40) // 200 bytes
	for i := range n {
		var m provider.Message
		switch i % 3 {
		case 0:
			m = provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock(text)}}
			payload += len(text)
		case 1:
			input := json.RawMessage(fmt.Sprintf(`{"path":"pkg/file%d.go"}`, i))
			m = provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{
				provider.TextBlock(text + text),
				{Kind: provider.BlockToolUse, ToolUseID: fmt.Sprintf("toolu_%020d", i), ToolName: "get_file", Input: input},
			}}
			payload += 2*len(text) + len(input)
		default:
			out := strings.Repeat("line of some source code\n", 40) // 1 000 bytes
			m = provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.ToolResultBlock(fmt.Sprintf("toolu_%020d", i-1), out, false)}}
			payload += len(out)
		}
		msgs = append(msgs, m)
	}
	return msgs, payload
}

// BenchmarkList times listing 500 saved threads of 30 messages each.
func BenchmarkList(b *testing.B) {
	s, err := Open(b.TempDir(), "/bench/ws", nil)
	if err != nil {
		b.Fatal(err)
	}
	msgs, _ := conversation(30)
	for i := range 500 {
		w, err := s.Create(Header{ID: fmt.Sprintf("0193a1b2-0000-7000-8000-%012d", i), Title: fmt.Sprintf("thread %d", i)})
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range msgs {
			if err := w.Message(m, Display{}); err != nil {
				b.Fatal(err)
			}
		}
		w.Close()
	}
	b.ResetTimer()
	for b.Loop() {
		if n := len(s.List()); n != 500 {
			b.Fatalf("listed %d", n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/list-500")
}

// BenchmarkLoad2000 times reading back a 2 000-message thread (the
// display rebuild is timed in package chat), and reports the bytes on
// disk per message and their overhead over the text they carry.
func BenchmarkLoad2000(b *testing.B) {
	s, err := Open(b.TempDir(), "/bench/ws", nil)
	if err != nil {
		b.Fatal(err)
	}
	msgs, payload := conversation(2000)
	w, err := s.Create(Header{ID: threadA})
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range msgs {
		if err := w.Message(m, Display{}); err != nil {
			b.Fatal(err)
		}
	}
	w.Close()
	info, err := os.Stat(s.logPath(threadA))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		t, err := s.Load(threadA)
		if err != nil || len(t.Messages) != 2000 {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(info.Size())/2000, "bytes/msg")
	b.ReportMetric(float64(info.Size()-int64(payload))/2000, "overhead-bytes/msg")
}

// BenchmarkAppend times saving one message (one write of the log line
// and the summary's rename).
func BenchmarkAppend(b *testing.B) {
	s, err := Open(b.TempDir(), "/bench/ws", nil)
	if err != nil {
		b.Fatal(err)
	}
	msgs, _ := conversation(3)
	w, err := s.Create(Header{ID: threadA})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	i := 0
	for b.Loop() {
		if err := w.Message(msgs[i%3], Display{}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
