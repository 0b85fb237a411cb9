package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/threadstore"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// firstFrame signals the first frame a thread publishes.
type firstFrame chan *view.Frame

func (f firstFrame) Publish(_ string, fr *view.Frame) {
	select {
	case f <- fr:
	default:
	}
}

// BenchmarkOpenSaved2000 times opening a saved 2 000-message thread as
// :Magenta thread does: lock and read the log, replay the history,
// rebuild every entry of the display, and render the first frame.
func BenchmarkOpenSaved2000(b *testing.B) {
	store, err := threadstore.Open(b.TempDir(), "/bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	const id = "0193a1b2-0000-7000-8000-0000000000aa"
	w, err := store.Create(threadstore.Header{ID: id, Title: "long"})
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("word ", 40)
	for i := range 2000 {
		var m provider.Message
		switch i % 3 {
		case 0:
			m = provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock(text)}}
		case 1:
			m = provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{
				provider.TextBlock(text + "\n" + text),
				{Kind: provider.BlockToolUse, ToolUseID: fmt.Sprintf("tu_%d", i), ToolName: "get_file", Input: json.RawMessage(fmt.Sprintf(`{"filePath":"f%d.go"}`, i))},
			}}
		default:
			m = provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.ToolResultBlock(fmt.Sprintf("tu_%d", i-1), strings.Repeat("code line\n", 40), false)}}
		}
		if err := w.Message(m, threadstore.Display{}); err != nil {
			b.Fatal(err)
		}
	}
	w.Close()
	profile := config.Profile{Name: "p", Provider: "anthropic", Model: "m"}
	for b.Loop() {
		frames := make(firstFrame, 1)
		deps := Deps{Tools: tools.Default(), Env: &capabilities.Environment{Name: "local", Cwd: "/bench"}, Display: frames, Store: store}
		w, saved, err := store.OpenWriter(id)
		if err != nil {
			b.Fatal(err)
		}
		t := RestoreThread(context.Background(), profile, deps, saved, RestoreOptions{Writer: w})
		f := <-frames
		if len(f.Settled)+len(f.Sections) < 2000 {
			b.Fatalf("%d sections", len(f.Settled)+len(f.Sections))
		}
		t.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/open")
}
