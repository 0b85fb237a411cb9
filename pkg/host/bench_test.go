package host_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

func benchFrame(lines int) *view.Frame {
	const entryLines = 20
	textLines := entryLines - 2
	text := func(seed int) string {
		ls := make([]string, textLines)
		for i := range ls {
			ls[i] = fmt.Sprintf("Line %d of message %d: the quick brown fox jumps over the lazy dog, twice.", i+1, seed)
		}
		return strings.Join(ls, "\n")
	}
	history := (lines - 4 - entryLines + entryLines/2) / entryLines
	version := uint64(1)
	ss := []*view.Section{view.RenderHeader("header", version, view.Header{Profile: "x", Provider: "anthropic", Model: "m"})}
	for i := 0; i <= history; i++ {
		version++
		id := fmt.Sprintf("e%d", i+1)
		if (history-i)%2 == 1 {
			ss = append(ss, view.RenderUser(id, version, text(i), false))
		} else {
			ss = append(ss, view.RenderAssistantHead(id, version, strings.Split(text(i), "\n"), true, view.FullText{}))
		}
	}
	version++
	ss = append(ss, view.RenderStatus("status", version, "streaming · :Magenta abort stops"))
	// Like a thread: the history is settled, the streamed reply and the
	// status line are live.
	var settled []*view.Section
	var ends []int
	for _, sec := range ss[:len(ss)-2] {
		settled, ends = view.AppendSettled(settled, ends, sec)
	}
	return &view.Frame{Settled: settled, SettledEnds: ends, Sections: ss[len(ss)-2:]}
}

// appendDelta returns f with its streaming section (the one before the
// status line) replaced by a new version whose last text line is extended
// by word, or which gains a line holding word when newLine is set.
func appendDelta(f *view.Frame, word string, newLine bool) *view.Frame {
	n := len(f.Sections)
	old := f.Sections[n-2]
	lines := make([]view.Line, len(old.Lines), len(old.Lines)+1)
	copy(lines, old.Lines)
	// The section ends with a blank line; the text's last line is before it.
	if newLine {
		lines = append(lines[:len(lines)-1], view.Line{Text: word}, view.Line{})
	} else {
		lines[len(lines)-2].Text += " " + word
	}
	s := &view.Section{ID: old.ID, Version: old.Version + 1, Lines: lines, Bindings: old.Bindings}
	ss := make([]*view.Section, n)
	copy(ss, f.Sections)
	ss[n-2] = s
	return &view.Frame{Settled: f.Settled, SettledEnds: f.SettledEnds, Sections: ss}
}

// BenchmarkApplyDelta measures one streamed delta reaching the display
// buffer: diff against the applied frame, the nvim_exec_lua request, and
// lua/magenta/ui.lua applying it (the window follows the end). The sizes
// differ only in the history above the streamed reply.
func BenchmarkApplyDelta(b *testing.B) {
	bins := nvimtest.Binaries()
	if len(bins) == 0 {
		b.Skip("no Neovim found: install it or set MAGENTA_TEST_NVIMS")
	}
	for _, lines := range []int{100, 10000} {
		b.Run(fmt.Sprintf("lines=%d", lines), func(b *testing.B) {
			n := nvimtest.Start(b, bins[0])
			n.Serve()
			v := n.V
			// A display buffer like the sidebar's, shown in the current
			// window with the cursor on the last line.
			var buf int
			if err := v.ExecLua(`
				local buf = vim.api.nvim_create_buf(false, true)
				vim.api.nvim_buf_set_var(buf, "magenta_role", "display")
				vim.bo[buf].modifiable = false
				vim.bo[buf].undolevels = -1
				vim.api.nvim_win_set_buf(0, buf)
				return buf`, &buf); err != nil {
				b.Fatal(err)
			}
			editor := host.NewNvimEditor(v)
			base := benchFrame(lines)
			// reset puts the streamed reply back to its starting text, as a
			// new version, so the work per delta does not depend on b.N.
			reset := func(prev *view.Frame) *view.Frame {
				ss := append([]*view.Section(nil), base.Sections...)
				s := *ss[len(ss)-2]
				s.Version = prev.Sections[len(prev.Sections)-2].Version + 1
				ss[len(ss)-2] = &s
				f := &view.Frame{Settled: base.Settled, SettledEnds: base.SettledEnds, Sections: ss}
				if ed, ok := view.Diff(prev, f); ok {
					if err := editor.ApplyEdit(buf, ed, 0); err != nil {
						b.Fatal(err)
					}
				}
				return f
			}
			full, _ := view.Diff(nil, base)
			if err := editor.ApplyEdit(buf, full, 0); err != nil {
				b.Fatal(err)
			}
			if err := v.ExecLua(`vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(...), 0 })`, nil, buf); err != nil {
				b.Fatal(err)
			}
			prev := base
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i > 0 && i%256 == 0 {
					b.StopTimer()
					prev = reset(prev)
					b.StartTimer()
				}
				next := appendDelta(prev, "word", i%16 == 15)
				ed, ok := view.Diff(prev, next)
				if !ok {
					b.Fatal("a delta changed nothing")
				}
				if err := editor.ApplyEdit(buf, ed, 0); err != nil {
					b.Fatal(err)
				}
				prev = next
			}
			b.StopTimer()
			// The buffer shows the last frame, and the window followed.
			var state struct {
				Count  int    `msgpack:"count"`
				Cursor int    `msgpack:"cursor"`
				Last   string `msgpack:"last"`
			}
			if err := v.ExecLua(`
				local buf = ...
				local n = vim.api.nvim_buf_line_count(buf)
				return { count = n, cursor = vim.api.nvim_win_get_cursor(0)[1],
					last = vim.api.nvim_buf_get_lines(buf, n - 3, n - 2, false)[1] }`, &state, buf); err != nil {
				b.Fatal(err)
			}
			texts := prev.Texts()
			if state.Count != len(texts) || state.Cursor != state.Count || state.Last != texts[len(texts)-3] {
				b.Fatalf("buffer has %d lines (cursor on %d, streamed line %q); want %d lines, cursor on the last, %q",
					state.Count, state.Cursor, state.Last, len(texts), texts[len(texts)-3])
			}
		})
	}
}
