package headless

import (
	"strings"

	"github.com/magenta-nvim/magenta/pkg/chat"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
)

// screen is the chat.Screen of a run with no editor: frames are dropped
// (the observer reports what happens as events), notifications become
// notice events, and there is nothing to open or press.
type screen struct{ s *state }

var _ chat.Screen = screen{}

func (screen) Publish(string, *view.Frame)                 {}
func (screen) Show(string)                                 {}
func (screen) BindingAt(int, view.Key) (view.Action, bool) { return view.Action{}, false }
func (screen) NotifyIfHidden(string)                       {}
func (screen) OpenFile(string, int)                        {}

// Notify implements chat.Screen.
func (sc screen) Notify(msg string, level chat.Level) {
	msg = strings.TrimPrefix(msg, "magenta: ")
	name := "info"
	switch level {
	case chat.LevelWarn:
		name = "warn"
	case chat.LevelError:
		name = "error"
		sc.s.mu.Lock()
		sc.s.errors = append(sc.s.errors, msg)
		sc.s.mu.Unlock()
	}
	sc.s.out.emit(Event{Type: EventNotice, Level: name, Text: msg})
}
