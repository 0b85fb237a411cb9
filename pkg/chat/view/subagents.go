package view

import (
	"fmt"
	"strings"
)

// SubagentLine is one sub-agent drawn inside the tool call that spawned
// or waits for it.
type SubagentLine struct {
	ID    string // the sub-agent's thread id
	Type  string
	Label string // its title, or the first words of its prompt
	// Env names the environment it works in when that is not its
	// parent's: one of setup()'s environments, or "ssh:host:/dir".
	Env    string
	State  string // queued, running, done, error, aborted
	Detail string // elapsed time and tokens
	// Approval is the sub-agent's oldest pending approval, answerable
	// here; its actions target the sub-agent's thread.
	Approval *Approval
}

// SubagentLabelWords is how many words of a prompt label a sub-agent
// that has no title yet.
const SubagentLabelWords = 8

// SubagentLabel is the first words of prompt, on one line.
func SubagentLabel(prompt string) string {
	words := strings.Fields(prompt)
	if len(words) > SubagentLabelWords {
		return strings.Join(words[:SubagentLabelWords], " ") + "…"
	}
	return strings.Join(words, " ")
}

// appendSubagents draws one line per sub-agent; activate on it opens the
// sub-agent's thread. A pending approval is drawn under its line with the
// usual choices.
func appendSubagents(lines []Line, binds []Binding, subs []SubagentLine) ([]Line, []Binding) {
	for _, s := range subs {
		state := s.State
		if s.Approval != nil {
			state = "waiting for approval"
		}
		text := fmt.Sprintf("  ▸ %s · %s · ", oneLine(s.Type), oneLine(s.Label))
		if s.Env != "" {
			text += "in " + oneLine(s.Env) + " · "
		}
		text += state
		if s.Detail != "" {
			text += " · " + s.Detail
		}
		group := HlMeta
		switch s.State {
		case "done":
			group = HlToolOK
		case "error", "aborted":
			group = HlToolError
		}
		binds = append(binds, Binding{Start: len(lines), End: len(lines) + 1, Key: KeyActivate,
			Action: Action{Kind: ActionSwitchThread, Arg: s.ID}})
		lines = append(lines, Line{Text: text, Hl: []Highlight{{2, -1, group}}})
		if s.Approval != nil {
			lines, binds = appendApproval(lines, binds, s.ID, s.Approval)
		}
	}
	return lines, binds
}

// appendParentLink draws the line of a sub-agent's header that leads back
// to the thread that spawned it.
func appendParentLink(lines []Line, binds []Binding, h Header) ([]Line, []Binding) {
	if h.ParentID == "" {
		return lines, binds
	}
	title := h.ParentTitle
	if title == "" {
		title = "New thread"
	}
	binds = append(binds, Binding{Start: len(lines), End: len(lines) + 1, Key: KeyActivate,
		Action: Action{Kind: ActionSwitchThread, Arg: h.ParentID}})
	opens := ":Magenta thread " + h.ParentID + " opens it"
	if h.ActivateKey != "" {
		opens = h.ActivateKey + " opens it"
	}
	return append(lines, whole(fmt.Sprintf("%s sub-agent of: %s (%s)", h.AgentType, title, opens), HlMeta)), binds
}
