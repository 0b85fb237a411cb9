package host

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/chat/view"
)

// frameWait bounds the waits of these tests.
const frameWait = 10 * time.Second

// gatedEditor reports each frame number it is asked to apply and waits
// for release before "Neovim" has it, as an RPC in flight.
type gatedEditor struct {
	recordingEditor
	applying chan int
	release  chan struct{}
}

func (e *gatedEditor) ApplyEdit(_ int, _ view.Edit, seq int) error {
	e.applying <- seq
	<-e.release
	return nil
}

// yesAt is a frame whose line `at` binds activate to a YES answer, below
// `at` header lines.
func yesAt(at int) *view.Frame {
	lines := make([]view.Line, at+1)
	for i := range at {
		lines[i] = view.Line{Text: "header"}
	}
	lines[at] = view.Line{Text: "> YES"}
	return &view.Frame{Sections: []*view.Section{{ID: "s", Version: uint64(at), Lines: lines,
		Bindings: []view.Binding{{Start: at, End: at + 1, Key: view.KeyActivate, Action: view.Action{Kind: "yes"}}}}}}
}

// A key names the frame the buffer showed when it was pressed: a frame
// sent meanwhile (a line added above) does not change what it means, and
// a frame Neovim shows before the renderer recorded it is already known.
func TestKeysResolveOnTheFrameTheyWerePressedOn(t *testing.T) {
	ed := &gatedEditor{applying: make(chan int), release: make(chan struct{})}
	r := NewRenderer(ed)
	defer func() { close(ed.release); r.Close() }()
	r.SetBuffer(1)
	r.Show("t")

	r.Publish("t", yesAt(0))
	first := receive(t, ed.applying)
	// In flight: Neovim may show it and a key may name it already.
	a, ok := r.BindingOnFrame(first, 0, view.KeyActivate)
	require.True(t, ok, "the frame being applied is known by its number")
	assert.Equal(t, view.ActionKind("yes"), a.Kind)
	_, ok = r.BindingAt(0, view.KeyActivate)
	assert.False(t, ok, "BindingAt only knows recorded frames")
	ed.release <- struct{}{}

	r.Publish("t", yesAt(1)) // a line was added above
	second := receive(t, ed.applying)
	ed.release <- struct{}{}
	assert.Greater(t, second, first)

	a, ok = r.BindingOnFrame(first, 0, view.KeyActivate)
	require.True(t, ok, "pressed on the first frame: still YES")
	assert.Equal(t, view.ActionKind("yes"), a.Kind)
	_, ok = r.BindingOnFrame(second, 0, view.KeyActivate)
	assert.False(t, ok, "on the second frame line 0 is the header")
	// Once recorded, a key that names no frame uses the latest.
	deadline := time.Now().Add(frameWait)
	for {
		if a, ok = r.BindingOnFrame(0, 1, view.KeyActivate); ok || time.Now().After(deadline) {
			break
		}
		runtime.Gosched()
	}
	require.True(t, ok, "no number: the latest recorded frame")
	assert.Equal(t, view.ActionKind("yes"), a.Kind)
}

func receive(t *testing.T, c chan int) int {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(frameWait):
		t.Fatal("no frame applied")
		return 0
	}
}
