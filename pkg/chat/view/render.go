package view

import (
	"fmt"
	"sort"
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
	HlButton    = "MagentaButton"
	// HlApprovalChoice marks the choices of a real approval (a request
	// the broker holds): nothing the model writes is drawn with it, so a
	// copy of an approval block in a reply or a tool's output looks
	// different, and no key answers it (keys resolve on bindings only).
	HlApprovalChoice = "MagentaApprovalChoice"
	HlDiffAdd        = "MagentaDiffAdd"
	HlDiffDel        = "MagentaDiffDelete"
	HlDiffHunk       = "MagentaDiffHunk"
)

// maxDiffLines caps the diff drawn under a tool call; the file itself is
// one key away.
const maxDiffLines = 40

// DiffHead returns what the chat draws of diff — its first maxDiffLines
// lines — and how many lines the whole diff has. A saved thread keeps
// only the head (ToolCall.DiffLines holds the count when reopened).
func DiffHead(diff string) (head string, lines int) {
	body := strings.TrimRight(diff, "\n")
	lines = strings.Count(body, "\n") + 1
	if lines <= maxDiffLines {
		return diff, lines
	}
	end := 0 // just past the maxDiffLines-th line's newline
	for range maxDiffLines {
		end += strings.IndexByte(body[end:], '\n') + 1
	}
	return body[:end], lines
}

// appendDiff draws a unified diff, indented, with its +/- lines coloured,
// at most maxDiffLines lines; total is the whole diff's line count when
// diff is only its head (0: diff is whole).
func appendDiff(lines []Line, diff string, total int) []Line {
	all := strings.Split(strings.TrimRight(diff, "\n"), "\n")
	total = max(total, len(all))
	for i, l := range all {
		if i == maxDiffLines {
			break
		}
		group := ""
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			group = HlMeta
		case strings.HasPrefix(l, "@@"):
			group = HlDiffHunk
		case strings.HasPrefix(l, "+"):
			group = HlDiffAdd
		case strings.HasPrefix(l, "-"):
			group = HlDiffDel
		}
		line := Line{Text: "  " + strings.TrimSuffix(l, "\r")}
		if group != "" {
			line.Hl = []Highlight{{2, -1, group}}
		}
		lines = append(lines, line)
	}
	if shown := min(len(all), maxDiffLines); total > shown {
		lines = append(lines, whole("  … "+Count(total-shown, "more diff line", "more diff lines"), HlMeta))
	}
	return lines
}

// Header is the top of a thread's frame.
type Header struct {
	Title    string
	Profile  string
	Provider string
	Model    string
	// Env describes where the thread works (environment and sandbox);
	// empty: no line.
	Env string
	// Mode is a mode the thread is in (plan mode); empty: no line.
	Mode string
	// Usage is the thread's total so far; zero: no line.
	Usage Usage
	// MCP names the MCP servers starting or failed; zero: no line.
	MCP MCPLine
	// A sub-agent's header links to the thread that spawned it.
	ParentID, ParentTitle, AgentType string
	// ActivateKey is the configured key that opens what is under the
	// cursor (keymaps.display.activate), named where the header offers
	// it; "" when disabled.
	ActivateKey string
}

// RenderHeader draws the thread title and its profile.
func RenderHeader(id string, version uint64, h Header) *Section {
	title := h.Title
	if title == "" {
		title = "New thread"
	}
	meta := fmt.Sprintf("profile %s · %s %s", h.Profile, h.Provider, h.Model)
	lines := []Line{whole("# "+title, HlTitle), whole(meta, HlMeta)}
	if h.Env != "" {
		lines = append(lines, whole(h.Env, HlMeta))
	}
	if h.Mode != "" {
		lines = append(lines, whole(h.Mode, HlWarning))
	}
	if !h.MCP.IsZero() {
		lines = append(lines, h.MCP.render())
	}
	if !h.Usage.IsZero() {
		lines = append(lines, whole(UsageLine(h.Usage), HlMeta))
	}
	lines, binds := appendParentLink(lines, nil, h)
	return &Section{ID: id, Version: version, Lines: append(lines, Line{}), Bindings: binds}
}

// ContextFile is a file attached to the thread.
type ContextFile struct {
	Path string // absolute, for the remove action
	Rel  string // as shown
}

// RenderContextFiles lists the files attached to the thread; "terminate"
// (x) on one removes it. No files: no lines.
func RenderContextFiles(id string, version uint64, threadID string, files []ContextFile) *Section {
	s := &Section{ID: id, Version: version}
	if len(files) == 0 {
		return s
	}
	s.Lines = append(s.Lines, whole("context files (x removes one):", HlMeta))
	for _, f := range files {
		s.Bindings = append(s.Bindings, Binding{Start: len(s.Lines), End: len(s.Lines) + 1, Key: KeyTerminate,
			Action: Action{Target: threadID, Kind: ActionRemoveContext, Arg: f.Path}})
		s.Lines = append(s.Lines, Line{Text: "  - " + oneLine(f.Rel)})
	}
	s.Lines = append(s.Lines, Line{})
	return s
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
// split keeps a streamed delta's work to one line. A block longer than
// FoldAfterLines is folded in the middle, with a marker naming the file
// holding all of it (full); lines longer than MaxLineChars are cut in the
// middle.
func RenderAssistantHead(id string, version uint64, lines []string, first bool, full FullText) *Section {
	shown := lines
	var rest []string
	folded := 0
	if len(lines) > FoldAfterLines {
		shown, rest = lines[:FoldHeadLines], lines[len(lines)-FoldTailLines:]
		folded = len(lines) - FoldHeadLines - FoldTailLines
	}
	out := make([]Line, 0, len(shown)+len(rest)+2)
	if first {
		out = append(out, whole("## assistant", HlAssistant))
	}
	for _, l := range shown {
		out = append(out, Line{Text: cutLine(strings.TrimSuffix(l, "\r"))})
	}
	if folded > 0 {
		out = append(out, foldMarker(folded, full))
	}
	for _, l := range rest {
		out = append(out, Line{Text: cutLine(strings.TrimSuffix(l, "\r"))})
	}
	return &Section{ID: id, Version: version, Lines: out}
}

// RenderAssistantTail draws the last, possibly unfinished, line of an
// assistant text block and the blank line after the block.
func RenderAssistantTail(id string, version uint64, last string) *Section {
	if last == "" {
		return &Section{ID: id, Version: version, Lines: []Line{{}}}
	}
	return &Section{ID: id, Version: version, Lines: []Line{{Text: cutLine(strings.TrimSuffix(last, "\r"))}, {}}}
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
	Name    string
	Input   string // JSON as the model sent it
	Status  ToolStatus
	Summary string // one line: what it is for, or how it ended
	Detail  string // one line under the head ("$ make test")
	Running string // while running: "3s of 2m0s"
	Live    []string
	Result  string // what the model got back
	LogPath string
	Diff    string // a unified diff of the change the call made
	// DiffLines is the whole diff's line count when Diff holds only its
	// first lines (a reopened thread, see DiffHead); 0 when Diff is whole.
	DiffLines int
	// DiffPath and DiffLine say where <CR> on the diff opens the file.
	DiffPath string
	DiffLine int
	// Notes are lines drawn under the diff (tools.Result.Notes: the
	// diagnostics an edit introduced or fixed).
	Notes    []string
	Approval *Approval
	// Subagents are the sub-agents the call spawned or waits for.
	Subagents []SubagentLine
	Expanded  bool
	// An interactive command's terminal (see terminal.go): the last
	// lines of its screen, whether it seems to wait for input, and
	// whether its window can be opened or is open.
	Screen   []string
	Waiting  bool
	Terminal TerminalState
	// TerminalKey is the key that opens the terminal, as the user
	// configured it ("" when disabled).
	TerminalKey string
}

// Approval is a pending question drawn inside the tool call that waits.
type Approval struct {
	ID      string
	Subject string // the command, path or host, verbatim
	Reason  string
	// Always labels the ALWAYS choice ("this exact command, …"); empty
	// when the request must be asked every time.
	Always string
	// Keys are the keys that answer, as the user configured them, named
	// in the block's hint line.
	Keys ApprovalKeys
}

// ApprovalKeys are the display keymaps that answer an approval, as the
// user configured them ("" when disabled).
type ApprovalKeys struct {
	Activate, Approve, Deny, Always string
}

// DefaultApprovalKeys are keymaps.display's defaults.
var DefaultApprovalKeys = ApprovalKeys{Activate: "<CR>", Approve: "a", Deny: "d", Always: "A"}

// RenderToolCall draws a tool call: its head line, the command or other
// detail, live output while it runs, a pending approval with its choices,
// the log link, and the input and result when expanded.
func RenderToolCall(threadID, id string, version uint64, tc ToolCall) *Section {
	icon, group := "⚙", HlTool
	state := ""
	switch tc.Status {
	case ToolPreparing:
		state = "preparing…"
	case ToolRunning:
		state = "running"
		if tc.Running != "" {
			state += " " + tc.Running
		}
		if tc.Approval != nil {
			state = "waiting for your approval"
		}
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
	switch {
	case summary != "" && state != "" && tc.Status <= ToolRunning:
		head += ": " + summary + " — " + state
	case summary != "":
		head += ": " + summary
	case state != "":
		head += ": " + state
	}
	toggle := Action{Target: threadID, Kind: ActionToggleTool, Arg: id}
	lines := []Line{{Text: head, Hl: []Highlight{{0, len(icon) + 1 + len(name), group}}}}
	var binds []Binding
	if tc.Detail != "" && tc.Approval == nil {
		lines = append(lines, whole("  "+oneLine(tc.Detail), HlMeta))
	}
	if tc.Status == ToolRunning && tc.Approval == nil {
		if tc.Terminal != TerminalNone {
			lines = appendScreen(lines, tc)
		} else {
			for _, l := range tc.Live {
				lines = append(lines, Line{Text: "  │ " + oneLine(l)})
			}
		}
	} else if tc.Status >= ToolDone && tc.Terminal != TerminalNone {
		note := TerminalEndedNote(tc.TerminalKey)
		if tc.Terminal == TerminalOpen {
			note = TerminalOpenNote
		}
		if note != "" {
			lines = append(lines, whole(note, HlMeta))
		}
	}
	if a := tc.Approval; a != nil {
		lines, binds = appendApproval(lines, binds, threadID, a)
	}
	lines, binds = appendSubagents(lines, binds, tc.Subagents)
	if tc.Diff != "" && tc.Status >= ToolDone {
		open := Action{Kind: ActionOpenFile, Arg: tc.DiffPath, Line: tc.DiffLine}
		start := len(lines)
		lines = appendDiff(lines, tc.Diff, tc.DiffLines)
		if tc.DiffPath != "" {
			binds = append(binds, Binding{Start: start, End: len(lines), Key: KeyActivate, Action: open})
		}
	}
	if tc.Status >= ToolDone {
		for _, n := range tc.Notes {
			lines = append(lines, whole("  "+oneLine(n), HlMeta))
		}
	}
	if tc.LogPath != "" && tc.Status >= ToolDone {
		binds = append(binds, Binding{Start: len(lines), End: len(lines) + 1, Key: KeyActivate, Action: Action{Kind: ActionOpenFile, Arg: tc.LogPath}})
		lines = append(lines, whole("  log: "+oneLine(tc.LogPath), HlMeta))
	}
	if tc.Expanded {
		lines = append(lines, whole("input:", HlMeta))
		lines = appendIndented(lines, tc.Input)
		if tc.Status >= ToolDone {
			lines = append(lines, whole("result:", HlMeta))
			lines = appendIndented(lines, tc.Result)
		}
	}
	lines = append(lines, Line{})
	block := len(lines) - 1
	binds = append(binds,
		Binding{Start: 0, End: block, Key: KeyToggle, Action: toggle},
		Binding{Start: 0, End: block, Key: KeyActivate, Action: toggle})
	if tc.Terminal != TerminalNone {
		binds = append(binds, Binding{Start: 0, End: block, Key: KeyTerminal, Action: Action{Target: threadID, Kind: ActionOpenTerminal, Arg: id}})
	}
	if tc.Status == ToolRunning {
		binds = append(binds, Binding{Start: 0, End: block, Key: KeyTerminate, Action: Action{Target: threadID, Kind: ActionTerminateTool, Arg: id}})
	}
	return &Section{ID: id, Version: version, Lines: lines, Bindings: binds}
}

// appendApproval draws the command verbatim, why it needs approval, one
// line per choice (in HlApprovalChoice, which only real approvals get),
// and a line naming the keys. <CR> on a choice answers it; the approve /
// deny / always keys answer on any line of the block, and only there —
// a key answers the request the cursor is on, never one elsewhere. A key
// whose answer the request does not offer (ALWAYS on a request asked
// every time) is bound to ActionNotOffered, so it answers nothing.
func appendApproval(lines []Line, binds []Binding, threadID string, a *Approval) ([]Line, []Binding) {
	start := len(lines)
	for _, l := range strings.Split(strings.TrimRight(a.Subject, "\n"), "\n") {
		lines = append(lines, whole("  ┃ "+l, HlWarning))
	}
	lines = append(lines, whole("  needs approval: "+oneLine(a.Reason), HlWarning))
	type choice struct {
		text string
		kind ActionKind
	}
	choices := []choice{
		{"  > YES", ActionApprove},
		{"  > NO", ActionDeny},
	}
	if a.Always != "" {
		choices = append(choices, choice{"  > ALWAYS (" + oneLine(a.Always) + ")", ActionAlways})
	}
	for _, c := range choices {
		binds = append(binds, Binding{Start: len(lines), End: len(lines) + 1, Key: KeyActivate, Action: Action{Target: threadID, Kind: c.kind, Arg: a.ID}})
		lines = append(lines, Line{Text: c.text, Hl: []Highlight{{2, -1, HlApprovalChoice}}})
	}
	if hint := approvalHint(a); hint != "" {
		lines = append(lines, whole("  "+hint, HlMeta))
	}
	keys := map[Key]ActionKind{KeyApprove: ActionApprove, KeyDeny: ActionDeny}
	if a.Always != "" {
		keys[KeyAlways] = ActionAlways
	}
	for key, kind := range keys {
		binds = append(binds, Binding{Start: start, End: len(lines), Key: key, Action: Action{Target: threadID, Kind: kind, Arg: a.ID}})
	}
	if a.Always == "" {
		msg := "ALWAYS is not offered for this request (it is asked every time), nothing was answered"
		if k := a.Keys; k.Approve != "" || k.Deny != "" {
			msg += "; keys: " + strings.Join(nonEmpty(keyName(k.Approve, "YES"), keyName(k.Deny, "NO")), ", ")
		}
		binds = append(binds, Binding{Start: start, End: len(lines), Key: KeyAlways, Action: Action{Target: threadID, Kind: ActionNotOffered, Arg: msg}})
	}
	sort.Slice(binds, func(i, j int) bool {
		if binds[i].Start != binds[j].Start {
			return binds[i].Start < binds[j].Start
		}
		return binds[i].Key < binds[j].Key
	})
	return lines, binds
}

// approvalHint names the keys that answer a (those the user kept).
func approvalHint(a *Approval) string {
	k := a.Keys
	parts := nonEmpty(keyName(k.Approve, "YES"), keyName(k.Deny, "NO"))
	if a.Always != "" {
		parts = append(parts, nonEmpty(keyName(k.Always, "ALWAYS"))...)
	}
	if k.Activate != "" {
		parts = append(parts, oneLine(k.Activate)+" on a choice")
	}
	if len(parts) == 0 {
		return ""
	}
	return "keys (cursor in this request): " + strings.Join(parts, " · ")
}

// keyName is "a YES" for key "a", "" when the key is disabled.
func keyName(key, what string) string {
	if key == "" {
		return ""
	}
	return oneLine(key) + " " + what
}

func nonEmpty(ss ...string) []string {
	out := ss[:0:0]
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
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
