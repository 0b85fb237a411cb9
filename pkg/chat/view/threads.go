package view

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ThreadSummary is one row of the thread list.
type ThreadSummary struct {
	ID      string
	Title   string
	Status  string
	Profile string
	// ParentID is the thread that spawned this sub-agent ("" for the
	// user's threads); the list draws sub-agents under their parent.
	ParentID string
	// Env names where the thread works when it is not the local
	// workspace ("docker:dev"); empty for local threads.
	Env string
	// Messages counts the messages of the conversation and Active is when
	// the last one came (zero: not shown).
	Messages int
	Active   time.Time
}

// ActiveFormat is how the thread list shows a thread's last activity.
const ActiveFormat = "Jan 2 15:04"

// RenderThreadList draws the thread list; "activate" (activateKey, as
// configured; "" when disabled) on a row switches to that thread.
func RenderThreadList(threads []ThreadSummary, activeID, activateKey string, version uint64) *Frame {
	opens := ":Magenta thread <id> opens a thread"
	if activateKey != "" {
		opens = activateKey + " on a thread opens it, as does :Magenta thread <id>"
	}
	head := &Section{ID: "threads:head", Version: version, Lines: []Line{
		whole("# Threads", HlTitle),
		whole(opens, HlMeta),
		{},
	}}
	f := &Frame{Sections: []*Section{head}}
	threads, depths := nestSubagents(threads)
	ids := make([]string, len(threads))
	for i, t := range threads {
		ids[i] = t.ID
	}
	short := ShortIDs(ids)
	for i, t := range threads {
		title := t.Title
		if title == "" {
			title = "New thread"
		}
		mark, group := "  ", ""
		if t.ID == activeID {
			mark, group = "* ", HlSelected
		}
		indent := strings.Repeat("    ", depths[i])
		where := ""
		if t.Env != "" {
			where = ", " + t.Env
		}
		if t.Messages > 0 {
			where += ", " + Count(t.Messages, "message", "messages")
		}
		if !t.Active.IsZero() {
			where += ", " + t.Active.Local().Format(ActiveFormat)
		}
		text := fmt.Sprintf("%s%s%d. %s  %s  [%s, %s%s]", mark, indent, i+1, short[t.ID], oneLine(title), t.Profile, t.Status, where)
		line := Line{Text: text}
		if group != "" {
			line.Hl = []Highlight{{0, -1, group}}
		}
		f.Sections = append(f.Sections, &Section{
			ID: "threads:" + strconv.Itoa(i), Version: version,
			Lines:    []Line{line},
			Bindings: []Binding{{Start: 0, End: 1, Key: KeyActivate, Action: Action{Kind: ActionSwitchThread, Arg: t.ID}}},
		})
	}
	return f
}

// nestSubagents orders threads so that each sub-agent follows its parent
// (and its parent's earlier sub-agents), keeping the given order among
// siblings, and returns each one's depth. A sub-agent whose parent is not
// in the list is drawn at the top level.
func nestSubagents(threads []ThreadSummary) ([]ThreadSummary, []int) {
	present := make(map[string]bool, len(threads))
	for _, t := range threads {
		present[t.ID] = true
	}
	children := map[string][]ThreadSummary{}
	var roots []ThreadSummary
	for _, t := range threads {
		if t.ParentID != "" && present[t.ParentID] && t.ParentID != t.ID {
			children[t.ParentID] = append(children[t.ParentID], t)
		} else {
			roots = append(roots, t)
		}
	}
	out := make([]ThreadSummary, 0, len(threads))
	depths := make([]int, 0, len(threads))
	var walk func(t ThreadSummary, depth int)
	walk = func(t ThreadSummary, depth int) {
		out, depths = append(out, t), append(depths, depth)
		for _, c := range children[t.ID] {
			walk(c, depth+1)
		}
	}
	for _, r := range roots {
		walk(r, 0)
	}
	return out, depths
}
