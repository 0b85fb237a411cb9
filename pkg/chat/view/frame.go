package view

// Highlight colours the byte range [Start, End) of a line with Group;
// End < 0 means to the end of the line.
type Highlight struct {
	Start, End int
	Group      string
}

// Line is one buffer line and its highlights.
type Line struct {
	Text string
	Hl   []Highlight
}

// Equal reports whether two lines look the same.
func (l Line) Equal(o Line) bool {
	if l.Text != o.Text || len(l.Hl) != len(o.Hl) {
		return false
	}
	for i := range l.Hl {
		if l.Hl[i] != o.Hl[i] {
			return false
		}
	}
	return true
}

// Key is a semantic key the Lua side forwards from the display buffer.
type Key string

const (
	// KeyActivate is <CR> by default: open, select, press a button.
	KeyActivate Key = "activate"
	// KeyToggle is = by default: expand or collapse details.
	KeyToggle Key = "toggle"
	// KeyApprove, KeyDeny and KeyAlways answer the approval under the
	// cursor, and nothing when the cursor is on no approval.
	KeyApprove Key = "approve"
	KeyDeny    Key = "deny"
	KeyAlways  Key = "always"
	// KeyTerminate stops the tool call under the cursor.
	KeyTerminate Key = "terminate"
	// KeyTerminal (t) opens an interactive command's terminal window.
	KeyTerminal Key = "terminal"
)

// Action is what a binding asks its owner to do. Target is the thread id,
// or "" for the application (thread list, sidebar).
type Action struct {
	Target string
	Kind   ActionKind
	Arg    string
	Line   int // for ActionOpenFile: the line to put the cursor on (0: keep)
}

// ActionKind names what an Action does. The view binds these constants
// and pkg/chat (App.act, Thread.onAction) switches on the same ones, so
// a kind renamed or dropped on one side fails to compile on the other
// instead of becoming a key that silently does nothing.
type ActionKind string

// Application actions (Target "").
const (
	// ActionSwitchThread shows the thread whose id is Arg.
	ActionSwitchThread ActionKind = "switch_thread"
	// ActionOpenFile opens the file Arg, at Line when it is not 0.
	ActionOpenFile ActionKind = "open_file"
)

// Thread actions (Target is the thread id).
const (
	// ActionToggleTool expands or collapses the tool call whose id is Arg.
	ActionToggleTool ActionKind = "toggle_tool"
	// ActionTerminateTool stops the running tool call whose id is Arg.
	ActionTerminateTool ActionKind = "terminate_tool"
	// ActionRemoveContext removes the context file whose path is Arg.
	ActionRemoveContext ActionKind = "remove_context"
	// ActionToggleEntry expands or collapses a folded entry (thinking, a
	// compaction summary); Arg is the entry id.
	ActionToggleEntry ActionKind = "toggle_entry"
	// ActionOpenTerminal opens the terminal of the tool call named by Arg.
	ActionOpenTerminal ActionKind = "open_terminal"
)

// Approval actions; Arg is the approval id.
const (
	ActionApprove ActionKind = "approve"
	ActionDeny    ActionKind = "deny"
	ActionAlways  ActionKind = "always"
	// ActionNotOffered is a key pressed on an approval that does not
	// offer its answer (ALWAYS on a request asked every time): nothing is
	// answered, the app says so; Arg is the message.
	ActionNotOffered ActionKind = "approval_not_offered"
)

// Binding maps Key on the section's lines [Start, End) to Action.
type Binding struct {
	Start, End int
	Key        Key
	Action     Action
}

// Section is an immutable piece of a frame.
type Section struct {
	ID       string
	Version  uint64
	Lines    []Line
	Bindings []Binding
}

// Frame is everything the display buffer shows: the Settled sections,
// then the live Sections.
//
// Settled is for owners that publish many frames of a long, mostly
// unchanging list (a thread): successive frames share its backing array,
// which only grows — an element, once published, is never replaced — so
// Diff skips the part two frames share without looking at it. SettledEnds
// holds, for each settled section, the line count up to and including it.
// An owner that must change a settled section starts a new backing array.
// Frames that do not need this leave Settled empty.
type Frame struct {
	Settled     []*Section
	SettledEnds []int
	Sections    []*Section
	// Urgent asks the display to draw this frame at once instead of
	// coalescing it with the next ones: it shows the first text of a
	// reply, whose latency the user feels.
	Urgent bool
}

// All returns every section in order (it copies when there are settled
// sections; for key presses and tests, not for the streaming path).
func (f *Frame) All() []*Section {
	if len(f.Settled) == 0 {
		return f.Sections
	}
	return append(append(make([]*Section, 0, len(f.Settled)+len(f.Sections)), f.Settled...), f.Sections...)
}

// LineCount is the number of lines in the frame.
func (f *Frame) LineCount() int {
	n := 0
	if k := len(f.SettledEnds); k > 0 {
		n = f.SettledEnds[k-1]
	}
	for _, s := range f.Sections {
		n += len(s.Lines)
	}
	return n
}

// Texts returns the frame's lines as strings (tests, full redraws).
func (f *Frame) Texts() []string {
	out := make([]string, 0, f.LineCount())
	for _, s := range f.All() {
		for _, l := range s.Lines {
			out = append(out, l.Text)
		}
	}
	return out
}

// BindingAt returns the action bound to key at the 0-based buffer line,
// choosing the innermost (shortest) binding range that contains it.
func (f *Frame) BindingAt(line int, key Key) (Action, bool) {
	offset := 0
	for _, s := range f.All() {
		if line >= offset && line < offset+len(s.Lines) {
			rel := line - offset
			best, found := Binding{}, false
			for _, b := range s.Bindings {
				if b.Key == key && rel >= b.Start && rel < b.End && (!found || b.End-b.Start < best.End-best.Start) {
					best, found = b, true
				}
			}
			return best.Action, found
		}
		offset += len(s.Lines)
	}
	return Action{}, false
}

// AppendSettled appends s to a frame's settled sections and their line
// ends. Appending never replaces an element, so frames already published
// with a shorter prefix of the same backing array stay valid.
func AppendSettled(secs []*Section, ends []int, s *Section) ([]*Section, []int) {
	n := 0
	if len(ends) > 0 {
		n = ends[len(ends)-1]
	}
	return append(secs, s), append(ends, n+len(s.Lines))
}
