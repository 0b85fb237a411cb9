package view

import (
	"fmt"
	"strconv"
)

// ThreadSummary is one row of the thread list.
type ThreadSummary struct {
	ID      string
	Title   string
	Status  string
	Profile string
}

// RenderThreadList draws the thread list; "activate" on a row switches to
// that thread.
func RenderThreadList(threads []ThreadSummary, activeID string, version uint64) *Frame {
	head := &Section{ID: "threads:head", Version: version, Lines: []Line{
		whole("# Threads", HlTitle),
		whole("<activate> (default <CR>) on a thread opens it", HlMeta),
		{},
	}}
	f := &Frame{Sections: []*Section{head}}
	for i, t := range threads {
		title := t.Title
		if title == "" {
			title = "New thread"
		}
		mark, group := "  ", ""
		if t.ID == activeID {
			mark, group = "* ", HlSelected
		}
		text := fmt.Sprintf("%s%d. %s  [%s, %s]", mark, i+1, oneLine(title), t.Profile, t.Status)
		line := Line{Text: text}
		if group != "" {
			line.Hl = []Highlight{{0, -1, group}}
		}
		f.Sections = append(f.Sections, &Section{
			ID: "threads:" + strconv.Itoa(i), Version: version,
			Lines:    []Line{line},
			Bindings: []Binding{{Start: 0, End: 1, Key: KeyActivate, Action: Action{Kind: "switch_thread", Arg: t.ID}}},
		})
	}
	return f
}
