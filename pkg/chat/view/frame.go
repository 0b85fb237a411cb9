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
)

// Action is what a binding asks its owner to do. Target is the thread id,
// or "" for the application (thread list, sidebar).
type Action struct {
	Target string
	Kind   string
	Arg    string
}

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

// Frame is everything the display buffer shows.
type Frame struct {
	Sections []*Section
}

// LineCount is the number of lines in the frame.
func (f *Frame) LineCount() int {
	n := 0
	for _, s := range f.Sections {
		n += len(s.Lines)
	}
	return n
}

// Texts returns the frame's lines as strings (tests, full redraws).
func (f *Frame) Texts() []string {
	out := make([]string, 0, f.LineCount())
	for _, s := range f.Sections {
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
	for _, s := range f.Sections {
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
