package view

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func sec(id string, version uint64, texts ...string) *Section {
	s := &Section{ID: id, Version: version}
	for _, t := range texts {
		s.Lines = append(s.Lines, Line{Text: t})
	}
	return s
}

func texts(ls []Line) []string {
	out := []string{}
	for _, l := range ls {
		out = append(out, l.Text)
	}
	return out
}

func TestDiff(t *testing.T) {
	a1 := sec("a", 1, "a0", "a1")
	b1 := sec("b", 1, "b0", "b1", "b2")
	c1 := sec("c", 1, "c0")
	tests := []struct {
		name       string
		old, new   *Frame
		start, end int
		lines      []string
		same       bool
	}{
		{"first frame replaces everything", nil, &Frame{Sections: []*Section{a1}}, 0, -1, []string{"a0", "a1"}, false},
		{"identical", &Frame{Sections: []*Section{a1, b1}}, &Frame{Sections: []*Section{a1, b1}}, 0, 0, nil, true},
		{"append to the last line", &Frame{Sections: []*Section{a1, b1}}, &Frame{Sections: []*Section{a1, sec("b", 2, "b0", "b1", "b2 more")}}, 4, 5, []string{"b2 more"}, false},
		{"new section at the end", &Frame{Sections: []*Section{a1, b1}}, &Frame{Sections: []*Section{a1, b1, c1}}, 5, 5, []string{"c0"}, false},
		{"section in the middle grows", &Frame{Sections: []*Section{a1, b1, c1}}, &Frame{Sections: []*Section{a1, sec("b", 2, "b0", "bX", "bY", "b2"), c1}}, 3, 4, []string{"bX", "bY"}, false},
		{"section removed", &Frame{Sections: []*Section{a1, b1, c1}}, &Frame{Sections: []*Section{a1, c1}}, 2, 5, []string{}, false},
		{"highlight change alone is an edit", &Frame{Sections: []*Section{a1}}, &Frame{Sections: []*Section{{ID: "a", Version: 2, Lines: []Line{{Text: "a0"}, {Text: "a1", Hl: []Highlight{{0, -1, "X"}}}}}}}, 1, 2, []string{"a1"}, false},
		{"to empty", &Frame{Sections: []*Section{a1}}, &Frame{}, 0, 2, []string{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, changed := Diff(tt.old, tt.new)
			assert.Equal(t, !tt.same, changed)
			if tt.same {
				return
			}
			assert.Equal(t, tt.start, e.Start)
			assert.Equal(t, tt.end, e.End)
			assert.Equal(t, tt.lines, texts(e.Lines))
		})
	}
}

// Applying Diff's edit to the old lines always gives the new lines.
func FuzzDiff(f *testing.F) {
	f.Add([]byte{1, 2, 3}, []byte{1, 3, 4})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		mk := func(bs []byte) *Frame {
			fr := &Frame{}
			for i, c := range bs {
				// Few distinct ids and versions, so sections collide often.
				fr.Sections = append(fr.Sections, sec(string(rune('a'+c%4)), uint64(c%3), string(rune('0'+c%5)), string(rune('0'+i%2))))
			}
			return fr
		}
		old, new := mk(a), mk(b)
		// Sections with equal (ID, Version) must have equal content for
		// Diff's skip to be valid: normalise by content.
		canon := map[[2]any]*Section{}
		for _, fr := range []*Frame{old, new} {
			for i, s := range fr.Sections {
				k := [2]any{s.ID, s.Version}
				if c, ok := canon[k]; ok {
					fr.Sections[i] = c
				} else {
					canon[k] = s
				}
			}
		}
		buf := old.Texts()
		e, changed := Diff(old, new)
		if changed {
			out := append([]string{}, buf[:e.Start]...)
			out = append(out, texts(e.Lines)...)
			out = append(out, buf[e.End:]...)
			buf = out
		}
		assert.Equal(t, new.Texts(), buf)
	})
}

// settle builds the settled part of a frame from sections, sharing one
// backing array the way a thread does.
func settle(secs ...*Section) ([]*Section, []int) {
	var s []*Section
	var ends []int
	for _, x := range secs {
		s, ends = AppendSettled(s, ends, x)
	}
	return s, ends
}

func TestDiffSharedSettledPrefix(t *testing.T) {
	settled, ends := settle(sec("h", 1, "h0"), sec("a", 1, "a0", "a1"), sec("b", 1, "b0"))
	old := &Frame{Settled: settled[:2], SettledEnds: ends[:2], Sections: []*Section{sec("b", 1, "b0"), sec("s", 1, "status")}}
	// The next frame settles b and streams into a new live section.
	next := &Frame{Settled: settled, SettledEnds: ends, Sections: []*Section{sec("c", 1, "c0 more"), sec("s", 2, "status 2")}}
	e, changed := Diff(old, next)
	assert.True(t, changed)
	assert.Equal(t, 4, e.Start)
	assert.Equal(t, 5, e.End)
	assert.Equal(t, []string{"c0 more", "status 2"}, texts(e.Lines))
	assert.Equal(t, 6, next.LineCount())
}

// With a settled prefix that grows between frames, applying the edit to
// the old lines still gives the new lines.
func FuzzDiffSettled(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4}, uint8(1), uint8(3), []byte{9})
	f.Fuzz(func(t *testing.T, ids []byte, k1, k2 uint8, live []byte) {
		var all []*Section
		for i, c := range ids {
			all = append(all, sec(string(rune('a'+i)), uint64(c), string(rune('0'+c%7))))
		}
		settled, ends := settle(all...)
		a, b := int(k1)%(len(all)+1), int(k2)%(len(all)+1)
		if a > b {
			a, b = b, a
		}
		mkLive := func(from int, extra []byte) []*Section {
			out := append([]*Section{}, all[from:]...)
			for i, c := range extra {
				out = append(out, sec("live"+string(rune('a'+i)), uint64(c), string(rune('0'+c%5))))
			}
			return out
		}
		old := &Frame{Settled: settled[:a], SettledEnds: ends[:a], Sections: mkLive(a, nil)}
		next := &Frame{Settled: settled[:b], SettledEnds: ends[:b], Sections: mkLive(b, live)}
		buf := old.Texts()
		e, changed := Diff(old, next)
		if changed {
			out := append([]string{}, buf[:e.Start]...)
			out = append(out, texts(e.Lines)...)
			buf = append(out, buf[e.End:]...)
		}
		assert.Equal(t, next.Texts(), buf)
	})
}
