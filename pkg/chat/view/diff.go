package view

// Edit replaces the buffer lines [Start, End) with Lines. Start and End
// are in the coordinates of the buffer as it is before the edit.
type Edit struct {
	Start, End int
	Lines      []Line
}

// Diff returns the edit that turns a buffer showing old into one showing
// new, or ok=false when they look the same. A nil old means the buffer's
// content is unknown: the edit then replaces all of it (End = -1).
//
// The settled sections two frames share (the same backing array) are
// skipped at once; then sections equal by pointer or by (ID, Version) at
// both ends are skipped without looking at their lines; only the sections
// in between are compared line by line. So the cost follows the change,
// not the length of the frame.
func Diff(old, new *Frame) (e Edit, ok bool) {
	if new == nil {
		new = &Frame{}
	}
	if old == nil {
		// Replace everything: an "empty" buffer still holds one line.
		return Edit{Start: 0, End: -1, Lines: flatten(new.All())}, true
	}
	shared, start := sharedSettled(old, new)
	os := rest(old, shared)
	ns := rest(new, shared)
	// Whole sections in common at the front.
	i := 0
	for i < len(os) && i < len(ns) && sameSection(os[i], ns[i]) {
		start += len(os[i].Lines)
		i++
	}
	// And at the back.
	oj, nj := len(os), len(ns)
	for oj > i && nj > i && sameSection(os[oj-1], ns[nj-1]) {
		oj--
		nj--
	}
	oldMid := flatten(os[i:oj])
	newMid := flatten(ns[i:nj])
	// Lines in common at either end of the middle.
	p := 0
	for p < len(oldMid) && p < len(newMid) && oldMid[p].Equal(newMid[p]) {
		p++
	}
	s := 0
	for s < len(oldMid)-p && s < len(newMid)-p && oldMid[len(oldMid)-1-s].Equal(newMid[len(newMid)-1-s]) {
		s++
	}
	if p == len(oldMid) && p == len(newMid) {
		return Edit{}, false
	}
	return Edit{
		Start: start + p,
		End:   start + len(oldMid) - s,
		Lines: newMid[p : len(newMid)-s],
	}, true
}

// sharedSettled returns how many settled sections old and new share by
// construction (same backing array), and how many lines they hold.
func sharedSettled(old, new *Frame) (n, lines int) {
	n = min(len(old.Settled), len(new.Settled))
	if n == 0 || &old.Settled[0] != &new.Settled[0] {
		return 0, 0
	}
	return n, new.SettledEnds[n-1]
}

// rest returns the sections of f after its first skip settled ones.
func rest(f *Frame, skip int) []*Section {
	if skip >= len(f.Settled) {
		if skip == len(f.Settled) {
			return f.Sections
		}
		return nil
	}
	return append(append(make([]*Section, 0, len(f.Settled)-skip+len(f.Sections)), f.Settled[skip:]...), f.Sections...)
}

func sameSection(a, b *Section) bool {
	return a == b || (a.ID == b.ID && a.Version == b.Version && a.ID != "")
}

// flatten concatenates sections' lines; with one section it returns its
// slice without copying.
func flatten(ss []*Section) []Line {
	switch len(ss) {
	case 0:
		return nil
	case 1:
		return ss[0].Lines
	}
	n := 0
	for _, s := range ss {
		n += len(s.Lines)
	}
	out := make([]Line, 0, n)
	for _, s := range ss {
		out = append(out, s.Lines...)
	}
	return out
}
