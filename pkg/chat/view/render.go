package view

import (
	"fmt"
	"strings"
)

// Highlight groups the plugin defines (lua/magenta/highlights.lua links
// them to standard groups so colour schemes apply).
const (
	HlTitle     = "MagentaTitle"
	HlMeta      = "MagentaMeta"
	HlUser      = "MagentaUser"
	HlAssistant = "MagentaAssistant"
	HlTool      = "MagentaTool"
	HlToolOK    = "MagentaToolOk"
	HlToolError = "MagentaToolError"
	HlError     = "MagentaError"
	HlWarning   = "MagentaWarning"
	HlStatus    = "MagentaStatus"
	HlSelected  = "MagentaSelected"
)

// Header is the top of a thread's frame.
type Header struct {
	Title    string
	Profile  string
	Provider string
	Model    string
}

// RenderHeader draws the thread title and its profile.
func RenderHeader(id string, version uint64, h Header) *Section {
	title := h.Title
	if title == "" {
		title = "New thread"
	}
	meta := fmt.Sprintf("profile %s · %s %s", h.Profile, h.Provider, h.Model)
	return &Section{ID: id, Version: version, Lines: []Line{
		whole("# "+title, HlTitle),
		whole(meta, HlMeta),
		{},
	}}
}

// RenderUser draws a message the user sent.
func RenderUser(id string, version uint64, text string, queued bool) *Section {
	head := "## user"
	if queued {
		head += " (queued until the current turn ends)"
	}
	lines := []Line{whole(head, HlUser)}
	lines = appendText(lines, text)
	return &Section{ID: id, Version: version, Lines: append(lines, Line{})}
}

// RenderAssistantHead draws the finished lines of one text block of an
// assistant reply; first says whether it opens the reply (and so carries
// the heading). RenderAssistantTail draws the line still streaming. The
// split keeps a streamed delta's work to one line.
func RenderAssistantHead(id string, version uint64, lines []string, first bool) *Section {
	out := make([]Line, 0, len(lines)+1)
	if first {
		out = append(out, whole("## assistant", HlAssistant))
	}
	for _, l := range lines {
		out = append(out, Line{Text: strings.TrimSuffix(l, "\r")})
	}
	return &Section{ID: id, Version: version, Lines: out}
}

// RenderAssistantTail draws the last, possibly unfinished, line of an
// assistant text block and the blank line after the block.
func RenderAssistantTail(id string, version uint64, last string) *Section {
	if last == "" {
		return &Section{ID: id, Version: version, Lines: []Line{{}}}
	}
	return &Section{ID: id, Version: version, Lines: []Line{{Text: strings.TrimSuffix(last, "\r")}, {}}}
}

// ToolStatus is where a tool call is in its life.
type ToolStatus int

const (
	ToolPreparing ToolStatus = iota // the model is still streaming its input
	ToolRunning
	ToolDone
	ToolFailed
	ToolAborted
)

// ToolCall is a tool call as the chat shows it.
type ToolCall struct {
	Name     string
	Input    string // JSON as the model sent it
	Status   ToolStatus
	Summary  string // one line for the collapsed view
	Result   string // what the model got back
	Expanded bool
}

// RenderToolCall draws a tool call: one line collapsed, the input and the
// result when expanded. "toggle" and "activate" expand or collapse it.
func RenderToolCall(threadID, id string, version uint64, tc ToolCall) *Section {
	icon, group := "⚙", HlTool
	state := ""
	switch tc.Status {
	case ToolPreparing:
		state = "preparing…"
	case ToolRunning:
		state = "running…"
	case ToolDone:
		icon, group = "✓", HlToolOK
	case ToolFailed:
		icon, group = "✗", HlToolError
	case ToolAborted:
		icon, group, state = "✗", HlToolError, "aborted"
	}
	name := oneLine(tc.Name)
	head := icon + " " + name
	summary := oneLine(firstLine(tc.Summary))
	if summary == "" {
		summary = state
	}
	if summary != "" {
		head += ": " + summary
	}
	lines := []Line{{Text: head, Hl: []Highlight{{0, len(icon) + 1 + len(name), group}}}}
	if tc.Expanded {
		lines = append(lines, whole("input:", HlMeta))
		lines = appendIndented(lines, tc.Input)
		if tc.Status >= ToolDone {
			lines = append(lines, whole("result:", HlMeta))
			lines = appendIndented(lines, tc.Result)
		}
	}
	lines = append(lines, Line{})
	toggle := Action{Target: threadID, Kind: "toggle_tool", Arg: id}
	return &Section{ID: id, Version: version, Lines: lines, Bindings: []Binding{
		{Start: 0, End: len(lines) - 1, Key: KeyToggle, Action: toggle},
		{Start: 0, End: len(lines) - 1, Key: KeyActivate, Action: toggle},
	}}
}

// NoticeLevel is how loud a notice is.
type NoticeLevel int

const (
	NoticeInfo NoticeLevel = iota
	NoticeWarning
	NoticeError
)

// RenderNotice draws a message from magenta itself (errors, retries).
func RenderNotice(id string, version uint64, level NoticeLevel, text string) *Section {
	prefix, group := "ℹ ", HlMeta
	switch level {
	case NoticeWarning:
		prefix, group = "⚠ ", HlWarning
	case NoticeError:
		prefix, group = "✗ ", HlError
	}
	var lines []Line
	for i, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if i == 0 {
			l = prefix + l
		} else {
			l = "  " + l
		}
		lines = append(lines, whole(l, group))
	}
	return &Section{ID: id, Version: version, Lines: append(lines, Line{})}
}

// RenderStatus draws the last line: what the thread is doing.
func RenderStatus(id string, version uint64, status string) *Section {
	return &Section{ID: id, Version: version, Lines: []Line{whole("── "+status+" ──", HlStatus)}}
}

func whole(text, group string) Line {
	return Line{Text: oneLine(text), Hl: []Highlight{{0, -1, group}}}
}

// oneLine keeps text that did not come from a split (titles, names the
// model chose) on one buffer line: Neovim refuses lines with newlines.
func oneLine(s string) string {
	if strings.ContainsAny(s, "\r\n") {
		return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	}
	return s
}

func appendText(lines []Line, text string) []Line {
	for _, l := range strings.Split(text, "\n") {
		lines = append(lines, Line{Text: strings.TrimSuffix(l, "\r")})
	}
	return lines
}

func appendIndented(lines []Line, text string) []Line {
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		lines = append(lines, Line{Text: "    " + strings.TrimSuffix(l, "\r")})
	}
	return lines
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
