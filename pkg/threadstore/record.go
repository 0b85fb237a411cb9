package threadstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// FormatVersion is written in every header. A log with a newer version
// is still read: unknown record kinds and fields are skipped.
const FormatVersion = 1

// Record kinds ("k" of each line).
const (
	kindHeader  = "header"
	kindMessage = "msg"
	kindTitle   = "title"
	kindUsage   = "usage"
	kindProfile = "profile"
	// kindTurnUsage: what one turn's requests used, drawn after the turn
	// (where it stands among the messages says which turn).
	kindTurnUsage = "turn"
	// kindCompaction: the history was replaced by a summary; what
	// follows continues the new history.
	kindCompaction = "compaction"
	// kindTodos: the thread's todo list was replaced (the last wins).
	kindTodos = "todos"
)

// Compaction is a point where the thread's history was replaced by a
// summary (context compaction): History is the whole history right
// after it. Messages before it stay in the log for the display.
type Compaction struct {
	Summary string `json:"summary"`
	// Replaced is how many messages the summary stands for.
	Replaced int                `json:"replaced,omitempty"`
	History  []provider.Message `json:"history"`
}

// Env is where a thread works: the local workspace, a container (on
// the engine of a Docker context when Context is set) or another machine
// reached over SSH. Fields a type does not use stay empty and are not
// written, so files written before Context and Host existed still load.
type Env struct {
	Type      string `json:"type"` // "local", "docker" or "ssh"
	Container string `json:"container,omitempty"`
	// Context is the Docker context of a docker thread ("" the CLI's
	// current one).
	Context string `json:"context,omitempty"`
	// Host is an ssh thread's destination, as given to ssh.
	Host string `json:"host,omitempty"`
	Cwd  string `json:"cwd,omitempty"`
}

// Label names the environment in the thread list ("" for local):
// "docker:<container>", "docker:<context>/<container>", "ssh:<host>" —
// the names the environments give themselves (capabilities.Environment
// Name).
func (e Env) Label() string {
	switch e.Type {
	case "docker":
		if e.Context != "" {
			return "docker:" + e.Context + "/" + e.Container
		}
		return "docker:" + e.Container
	case "ssh":
		return "ssh:" + e.Host
	}
	return ""
}

// Header is the first record of a thread's log.
type Header struct {
	Version   int       `json:"v"`
	ID        string    `json:"id"`
	Created   time.Time `json:"created"`
	Workspace string    `json:"workspace"`
	Env       Env       `json:"env"`
	// ParentID links a sub-agent to the thread that spawned it.
	ParentID string `json:"parent,omitempty"`
	// Profile is the profile the thread was made on (a hint for
	// reopening; the current options decide).
	Profile string `json:"profile,omitempty"`
	Title   string `json:"title,omitempty"`
}

// Typed marks a block of a user message as text the user typed (as
// opposed to context files and attachments sent with it), with the
// labels of what its @-mentions attached, so the display can be
// rebuilt as the user saw it.
type Typed struct {
	Block    int      `json:"i"`
	Attached []string `json:"att,omitempty"`
}

// ToolDisplay is what the chat showed of a finished tool call beyond
// its result text: the summary line, the log file, the place an edit
// jumps to and the head of its diff. Saved because no part of the
// history holds them.
type ToolDisplay struct {
	Summary string `json:"sum,omitempty"`
	LogPath string `json:"log,omitempty"`
	Path    string `json:"path,omitempty"`
	Line    int    `json:"line,omitempty"`
	// Diff is the head of the diff of the change the call made, as much
	// as the chat draws; DiffLines is the whole diff's line count when
	// the head is shorter.
	Diff      string `json:"diff,omitempty"`
	DiffLines int    `json:"diffLines,omitempty"`
}

// Display is what a message record keeps for rebuilding the chat as the
// user saw it; empty for most messages.
type Display struct {
	// Typed marks the typed blocks of a user message; nil: every text
	// block was typed.
	Typed []Typed `json:"typed,omitempty"`
	// Tools holds the display of tool results, by tool-use id.
	Tools map[string]ToolDisplay `json:"tools,omitempty"`
}

// Usage is what a thread's requests used so far.
type Usage struct {
	Input      int     `json:"in,omitempty"`
	Output     int     `json:"out,omitempty"`
	CacheRead  int     `json:"cr,omitempty"`
	CacheWrite int     `json:"cw,omitempty"`
	Cost       float64 `json:"cost,omitempty"`
	Priced     bool    `json:"priced,omitempty"`
}

// TurnUsage is what one turn's requests used, as the line after the
// turn shows it.
type TurnUsage struct {
	Usage
	Requests int `json:"n,omitempty"`
}

// Todo is one step of a thread's todo list (todo_write).
type Todo struct {
	Text   string `json:"text"`
	Status string `json:"status"`
}

// record is one line of the log. Only the fields of its kind are set.
type record struct {
	Kind    string            `json:"k"`
	Header  *Header           `json:"h,omitempty"`
	Message *provider.Message `json:"m,omitempty"`
	Display *Display          `json:"d,omitempty"`
	Title   *string           `json:"title,omitempty"`
	Profile *string           `json:"profile,omitempty"`
	Usage   *Usage            `json:"u,omitempty"`
	// Requests is how many requests a turn's usage adds up (kindTurnUsage).
	Requests int         `json:"n,omitempty"`
	Compact  *Compaction `json:"c,omitempty"`
	// Todos is the whole list (kindTodos); present, possibly empty.
	Todos *[]Todo `json:"todos,omitempty"`
	// At is when the record was written (unix milliseconds): the last
	// one is the thread's last activity.
	At int64 `json:"t,omitempty"`
}

// encode returns r as one line, newline included. A tool input that is
// not valid JSON (which encoding/json refuses to embed) is saved as
// {"_invalid_arguments": "<raw>"}, the form the tools report to the model.
func encode(r record) ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil && r.Message != nil {
		m := sanitize(*r.Message)
		r.Message = &m
		b, err = json.Marshal(r)
	}
	if err != nil {
		return nil, fmt.Errorf("encode %s record: %w", r.Kind, err)
	}
	return append(b, '\n'), nil
}

func sanitize(m provider.Message) provider.Message {
	out := provider.Message{Role: m.Role, Content: make([]provider.Block, len(m.Content))}
	for i, b := range m.Content {
		if len(b.Input) > 0 && !json.Valid(b.Input) {
			b.Input, _ = json.Marshal(map[string]string{provider.InvalidArgumentsKey: string(b.Input)})
		}
		if len(b.Result) > 0 {
			b.Result = sanitize(provider.Message{Content: b.Result}).Content
		}
		out.Content[i] = b
	}
	return out
}

// decode parses one line; it never panics on bad input.
func decode(line []byte) (record, error) {
	var r record
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&r); err != nil {
		return record{}, err
	}
	if r.Kind == "" {
		return record{}, fmt.Errorf("record without a kind")
	}
	return r, nil
}
