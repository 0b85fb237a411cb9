package chat

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// Shape of the benchmark conversation: every entry (user message or
// assistant reply) renders benchEntryLines buffer lines, and the frame adds
// the header (3 lines) and the status line (1).
const (
	benchEntryLines = 20
	benchFrameExtra = 4
	// benchResetEvery bounds the streamed reply: after this many deltas
	// it is put back to its starting size (untimed), so the work per
	// delta does not depend on b.N.
	benchResetEvery = 256
	// benchLineEvery: one delta in this many ends a line, so the reply
	// grows in lines of realistic width rather than one endless line.
	benchLineEvery = 16
)

type nopDisplay struct{}

func (nopDisplay) Publish(string, *view.Frame) {}

// benchText returns n lines of prose, distinct per seed.
func benchText(seed, n int) string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("Line %d of message %d: the quick brown fox jumps over the lazy dog, twice.", i+1, seed)
	}
	return strings.Join(lines, "\n")
}

// benchThread builds a thread, without its goroutine, whose frame has
// about lines lines and which is streaming into its last assistant entry.
// It returns the thread, that entry and the entry's starting text.
func benchThread(b *testing.B, lines int) (*Thread, *entry, string) {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	t := &Thread{
		ID: "bench-thread",
		deps: Deps{
			Tools: tools.Default(), Display: nopDisplay{},
			NewProvider: func(config.Profile) (provider.Provider, error) {
				return nil, fmt.Errorf("benchmark thread has no provider")
			},
		},
		inbox: make(chan any, inboxSize), ctx: ctx, cancel: cancel, done: make(chan struct{}),
		profile:   config.Profile{Name: "x", Provider: "anthropic", Model: "m"},
		providers: map[string]provider.Provider{},
	}
	// A user entry renders "## user", its text and a blank line; a first
	// assistant block "## assistant", its text and a blank line.
	textLines := benchEntryLines - 2
	history := (lines - benchFrameExtra - benchEntryLines + benchEntryLines/2) / benchEntryLines
	if history < 0 {
		history = 0
	}
	for i := 0; i < history; i++ {
		// Alternate so that the history ends with a user message.
		if (history-1-i)%2 == 0 {
			e := t.newEntry(entryUser)
			e.text = benchText(i, textLines)
		} else {
			e := t.newEntry(entryAssistant)
			e.lines, e.first = strings.Split(benchText(i, textLines), "\n"), true
		}
	}
	last := t.newEntry(entryAssistant)
	base := benchText(history, textLines)
	last.lines, last.first = strings.Split(base, "\n"), true

	tctx, tcancel := context.WithCancel(ctx)
	t.turnSeq = 1
	t.turn = &turn{
		id: 1, firstEntry: last.index, ctx: tctx, cancel: tcancel, phase: phaseStreaming,
		texts: map[int]*entry{0: last}, tools: map[int]*entry{}, anyText: true,
	}
	if got := t.frame().LineCount(); got < lines*9/10 || got > lines*11/10 {
		b.Fatalf("frame has %d lines, want about %d", got, lines)
	}
	return t, last, base
}

var benchEditSink view.Edit

// BenchmarkAppendDelta measures what the thread goroutine does for one
// streamed text delta: handle the event, build the frame, diff it against
// the frame applied before. The two sizes differ only in how much history
// precedes the streamed reply; the view package promises the cost follows
// the change, not the buffer.
func BenchmarkAppendDelta(b *testing.B) {
	for _, lines := range []int{100, 10000} {
		b.Run(fmt.Sprintf("lines=%d", lines), func(b *testing.B) {
			t, last, base := benchThread(b, lines)
			prev := t.frame()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i > 0 && i%benchResetEvery == 0 {
					b.StopTimer()
					last.lines = strings.Split(base, "\n")
					last.last.Reset()
					t.touch(last)
					prev = t.frame()
					b.StartTimer()
				}
				text := "word "
				if i%benchLineEvery == benchLineEvery-1 {
					text = "word\n"
				}
				t.handle(msgStream{turn: 1, ev: provider.TextDelta{Index: 0, Text: text}})
				f := t.frame()
				ed, ok := view.Diff(prev, f)
				if !ok {
					b.Fatal("a delta changed nothing")
				}
				benchEditSink = ed
				prev = f
			}
		})
	}
}
