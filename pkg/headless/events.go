package headless

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
)

// SchemaVersion is the "v" of every --json event. It changes only when a
// field changes meaning or goes away; new fields and new types may be
// added within a version.
const SchemaVersion = 1

// Event types (the "type" field), documented in doc/magenta.txt
// (magenta-headless-json).
const (
	EventStart      = "start"      // the run began: thread, profile, model, cwd, approve
	EventText       = "text"       // a piece of the reply as it streams
	EventThinking   = "thinking"   // a piece of the model's thinking
	EventToolCall   = "toolCall"   // a tool call starts, with its input
	EventToolResult = "toolResult" // a tool call ended: its text as the model gets it
	EventApproval   = "approval"   // a question the run answered (--approve)
	EventUsage      = "usage"      // one turn's usage of the main thread
	EventNotice     = "notice"     // a warning or error outside the reply
	EventResult     = "result"     // the last event: status, exit code, final message, total usage
)

// Event is one line of --json output. Fields a type does not use are
// left out.
type Event struct {
	V        int             `json:"v"`
	Type     string          `json:"type"`
	Thread   string          `json:"thread,omitempty"`
	Parent   string          `json:"parent,omitempty"`
	ID       string          `json:"id,omitempty"`
	Name     string          `json:"name,omitempty"`
	Input    json.RawMessage `json:"input,omitempty"`
	Text     string          `json:"text,omitempty"`
	IsError  bool            `json:"isError,omitempty"`
	Summary  string          `json:"summary,omitempty"`
	ToolCall string          `json:"toolCall,omitempty"`
	Kind     string          `json:"kind,omitempty"`
	Subject  string          `json:"subject,omitempty"`
	Reason   string          `json:"reason,omitempty"`
	Decision string          `json:"decision,omitempty"`
	Level    string          `json:"level,omitempty"`
	Usage    *Usage          `json:"usage,omitempty"`
	Requests int             `json:"requests,omitempty"`
	Profile  string          `json:"profile,omitempty"`
	Model    string          `json:"model,omitempty"`
	Cwd      string          `json:"cwd,omitempty"`
	Approve  string          `json:"approve,omitempty"`
	Resumed  bool            `json:"resumed,omitempty"`
	Status   string          `json:"status,omitempty"`
	ExitCode *int            `json:"exitCode,omitempty"`
	Error    string          `json:"error,omitempty"`
}

// Usage is token counts and, when the profile has pricing, cost in USD.
type Usage struct {
	Input      int     `json:"input"`
	Output     int     `json:"output"`
	CacheRead  int     `json:"cacheRead"`
	CacheWrite int     `json:"cacheWrite"`
	Cost       float64 `json:"cost"`
	Priced     bool    `json:"priced"`
}

// output writes events on its own goroutine: observers run on thread
// goroutines and must never block on a slow reader of stdout, so events
// queue (unbounded) and the writer drains them in order.
type output struct {
	w    io.Writer
	errW io.Writer
	json bool

	mu      sync.Mutex
	queue   []Event
	wake    chan struct{}
	closed  bool
	done    chan struct{}
	midLine bool // text mode: the reply's last line has no newline yet
}

func newOutput(stdout, stderr io.Writer, asJSON bool) *output {
	o := &output{w: stdout, errW: stderr, json: asJSON, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go o.run()
	return o
}

// emit queues ev; it never blocks.
func (o *output) emit(ev Event) {
	ev.V = SchemaVersion
	o.mu.Lock()
	if !o.closed {
		o.queue = append(o.queue, ev)
	}
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// close writes what is queued and stops the writer.
func (o *output) close() {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
	<-o.done
}

func (o *output) run() {
	defer close(o.done)
	for {
		<-o.wake
		o.mu.Lock()
		batch, closed := o.queue, o.closed
		o.queue = nil
		o.mu.Unlock()
		for _, ev := range batch {
			o.write(ev)
		}
		if closed {
			o.mu.Lock()
			rest := o.queue
			o.queue = nil
			o.mu.Unlock()
			for _, ev := range rest {
				o.write(ev)
			}
			return
		}
	}
}

func (o *output) write(ev Event) {
	if o.json {
		line, err := json.Marshal(ev)
		if err != nil { // every field marshals; a bug otherwise
			line, _ = json.Marshal(Event{V: SchemaVersion, Type: EventNotice, Level: "error", Text: "cannot encode an event: " + err.Error()})
		}
		_, _ = o.w.Write(append(line, '\n'))
		return
	}
	o.writeText(ev)
}

// writeText is the human form: the main thread's reply on stdout as it
// streams, so `answer=$(magenta-host run …)` captures just the answer;
// tool calls, approvals, notices and usage on stderr.
func (o *output) writeText(ev Event) {
	switch ev.Type {
	case EventText:
		if ev.Parent != "" {
			return
		}
		_, _ = io.WriteString(o.w, ev.Text)
		o.midLine = !strings.HasSuffix(ev.Text, "\n")
	case EventToolCall:
		o.endLine()
		fmt.Fprintf(o.errW, "» %s%s %s\n", subagentMark(ev), ev.Name, oneLine(string(ev.Input), 200))
	case EventToolResult:
		mark := "✓"
		if ev.IsError {
			mark = "✗"
		}
		text := ev.Summary
		if text == "" {
			text = ev.Text
		}
		fmt.Fprintf(o.errW, "  %s %s%s: %s\n", mark, subagentMark(ev), ev.Name, oneLine(text, 200))
	case EventApproval:
		fmt.Fprintf(o.errW, "  ? %s %s: %s (%s)\n", ev.Kind, oneLine(ev.Subject, 120), ev.Decision, oneLine(ev.Reason, 200))
	case EventNotice:
		o.endLine()
		fmt.Fprintf(o.errW, "magenta: %s\n", ev.Text)
	case EventUsage:
		if ev.Usage != nil {
			fmt.Fprintf(o.errW, "· %s\n", usageLine(*ev.Usage))
		}
	case EventResult:
		o.endLine()
		if ev.Error != "" {
			fmt.Fprintf(o.errW, "magenta: %s\n", ev.Error)
		}
	}
}

// endLine ends the reply's line before something else is written, so
// stdout stays line-oriented.
func (o *output) endLine() {
	if o.midLine {
		_, _ = io.WriteString(o.w, "\n")
		o.midLine = false
	}
}

func subagentMark(ev Event) string {
	if ev.Parent != "" {
		return "[sub-agent " + shortID(ev.Thread) + "] "
	}
	return ""
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[len(id)-8:]
	}
	return id
}

// oneLine flattens s to one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func usageLine(u Usage) string {
	s := fmt.Sprintf("%d tokens in (%d cached), %d out", u.Input, u.CacheRead, u.Output)
	if u.Priced {
		s += fmt.Sprintf(", $%.4f", u.Cost)
	}
	return s
}
