package view

import "strings"

// MCPLine is what a thread's header says about MCP servers that are not
// ready: those starting and those that failed (until they are ready).
// The names are joined by ", "; both empty: no line.
type MCPLine struct {
	Starting string
	Failed   string
}

// NewMCPLine builds the line's fields from server names.
func NewMCPLine(starting, failed []string) MCPLine {
	return MCPLine{Starting: strings.Join(starting, ", "), Failed: strings.Join(failed, ", ")}
}

// IsZero reports whether there is nothing to say.
func (m MCPLine) IsZero() bool { return m.Starting == "" && m.Failed == "" }

// render draws "mcp: a, b starting… · c failed (see :Magenta mcp)", the
// failed part as a warning.
func (m MCPLine) render() Line {
	text := "mcp: "
	var hl []Highlight
	if m.Starting != "" {
		part := oneLine(m.Starting) + " starting…"
		hl = append(hl, Highlight{0, len(text) + len(part), HlMeta})
		text += part
	}
	if m.Failed != "" {
		if m.Starting != "" {
			text += " · "
		}
		start := len(text)
		if m.Starting == "" {
			hl = append(hl, Highlight{0, start, HlMeta})
		}
		text += oneLine(m.Failed) + " failed (see :Magenta mcp)"
		hl = append(hl, Highlight{start, -1, HlWarning})
	}
	return Line{Text: text, Hl: hl}
}

// RenderWorkspaceApproval draws a question asked of the workspace, not of
// one tool call (whether to trust the project's .mcp.json), at the top
// of every thread: a title, the subject, why, and YES / NO. nil: no
// lines.
func RenderWorkspaceApproval(id string, version uint64, threadID string, a *Approval) *Section {
	s := &Section{ID: id, Version: version}
	if a == nil {
		return s
	}
	lines := []Line{whole("⚠ waiting for your answer", HlWarning)}
	lines, binds := appendApproval(lines, nil, threadID, a)
	s.Lines, s.Bindings = append(lines, Line{}), binds
	return s
}
