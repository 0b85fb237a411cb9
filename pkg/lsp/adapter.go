package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/neovim/go-client/nvim"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// Bounds of one request.
const (
	// ClientWait, DiagnosticsWait and RequestTimeout are the
	// capability's bounds (see capabilities.LSPClientWait).
	ClientWait      = capabilities.LSPClientWait
	DiagnosticsWait = capabilities.LSPDiagnosticsWait
	RequestTimeout  = capabilities.LSPRequestTimeout
)

// Editor is the part of the RPC client this package uses (*nvim.Nvim).
type Editor interface {
	ExecLua(code string, result any, args ...any) error
	// Mode is nvim_get_mode, which Neovim answers even while it waits
	// for input at a prompt (it is a "fast" call; exec_lua is not).
	Mode() (*nvim.Mode, error)
}

// Adapter implements capabilities.LspClient and DiagnosticsProvider.
// Safe for concurrent use.
type Adapter struct {
	nv Editor
	// timeout bounds a request (RequestTimeout), modeWait the question
	// that follows a timeout (ModeWait); shorter in unit tests.
	timeout, modeWait time.Duration

	mu      sync.Mutex
	seq     int
	pending map[int]chan reply

	lastAvailable atomic.Bool
	// support is the last answer of what the servers support (ask.go).
	support supportCache
}

var (
	_ capabilities.LspClient           = (*Adapter)(nil)
	_ capabilities.DiagnosticsProvider = (*Adapter)(nil)
)

type reply struct {
	results string
	err     string
}

// New returns an adapter over nv.
func New(nv Editor) *Adapter {
	return &Adapter{nv: nv, timeout: RequestTimeout, modeWait: ModeWait, pending: map[int]chan reply{}}
}

// Deliver hands the answer of request id (an "lsp_result" event) to its
// caller; unknown or late ids are dropped.
func (a *Adapter) Deliver(id int, results, errMsg string) {
	a.mu.Lock()
	ch := a.pending[id]
	delete(a.pending, id)
	a.mu.Unlock()
	if ch != nil {
		ch <- reply{results, errMsg}
	}
}

// serverAnswer is one client's answer, as lsp.lua encodes it.
type serverAnswer struct {
	Client string          `json:"client"`
	Result json.RawMessage `json:"result"`
	Error  string          `json:"error"`
}

func (a *Adapter) request(ctx context.Context, path, method string, pos capabilities.Position) ([]serverAnswer, error) {
	raw, err := a.call(ctx, method+" on "+path, func(id int) error {
		return a.nv.ExecLua(`require('magenta.lsp').request(...)`, nil, id, path, method, pos.Line, pos.Col, ClientWait.Milliseconds())
	})
	if err != nil {
		return nil, err
	}
	var answers []serverAnswer
	if err := json.Unmarshal([]byte(raw), &answers); err != nil {
		return nil, fmt.Errorf("%s: undecodable answer: %w", method, err)
	}
	return answers, nil
}

// call starts an asynchronous Lua request with a fresh id and waits for
// its answer (delivered as an "lsp_result" event), ctx or the timeout.
// Starting it is waited for the same way: Neovim holds an exec_lua while
// it shows a prompt (a plugin's "Press ENTER" message printed as the
// file loads), so the call itself may not return in time.
func (a *Adapter) call(ctx context.Context, what string, start func(id int) error) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	a.mu.Lock()
	a.seq++
	id := a.seq
	ch := make(chan reply, 1)
	a.pending[id] = ch
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.pending, id)
		a.mu.Unlock()
	}()
	started := make(chan error, 1)
	go func() { started <- start(id) }() // ends when Neovim answers, prompt or not
	for {
		select {
		case err := <-started:
			if err != nil {
				return "", fmt.Errorf("%s: %w", what, err)
			}
			started = nil
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return "", a.noAnswer(what)
			}
			return "", fmt.Errorf("%s: %w", what, ctx.Err())
		case r := <-ch:
			if r.err != "" {
				return "", fmt.Errorf("%w: %s", capabilities.ErrNoLanguageServer, r.err)
			}
			return r.results, nil
		}
	}
}

// noAnswer describes a request Neovim did not answer in time, with the
// mode it is in now (asked with a bound: a Neovim that does not answer
// that either is busy, or gone).
func (a *Adapter) noAnswer(what string) error {
	e := &NoAnswerError{What: what, After: a.timeout}
	mode := make(chan *nvim.Mode, 1)
	go func() {
		m, err := a.nv.Mode()
		if err != nil {
			m = nil
		}
		mode <- m
	}()
	select {
	case m := <-mode:
		if m != nil {
			e.Mode, e.Blocked, e.ModeKnown = m.Mode, m.Blocking, true
		}
	case <-time.After(a.modeWait):
	}
	return e
}

// Hover implements capabilities.LspClient.
func (a *Adapter) Hover(ctx context.Context, path string, pos capabilities.Position) ([]capabilities.Hover, error) {
	answers, err := a.request(ctx, path, "textDocument/hover", pos)
	if err != nil {
		return nil, err
	}
	var out []capabilities.Hover
	for _, ans := range answers {
		var h struct {
			Contents json.RawMessage `json:"contents"`
		}
		if json.Unmarshal(ans.Result, &h) == nil && len(h.Contents) > 0 {
			if text := markup(h.Contents); text != "" {
				out = append(out, capabilities.Hover{Server: ans.Client, Text: text})
			}
		}
	}
	return out, nil
}

// markup flattens MarkupContent, MarkedString and arrays of them.
func markup(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var mc struct {
		Kind, Value, Language string
	}
	if json.Unmarshal(raw, &mc) == nil && mc.Value != "" {
		if mc.Language != "" {
			return "```" + mc.Language + "\n" + mc.Value + "\n```"
		}
		return mc.Value
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		parts := make([]string, 0, len(list))
		for _, item := range list {
			if t := markup(item); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n\n")
	}
	return ""
}

// References implements capabilities.LspClient.
func (a *Adapter) References(ctx context.Context, path string, pos capabilities.Position) ([]capabilities.Location, error) {
	return a.locations(ctx, path, "textDocument/references", pos)
}

// Definition implements capabilities.LspClient.
func (a *Adapter) Definition(ctx context.Context, path string, pos capabilities.Position) ([]capabilities.Location, error) {
	return a.locations(ctx, path, "textDocument/definition", pos)
}

// TypeDefinition implements capabilities.LspClient.
func (a *Adapter) TypeDefinition(ctx context.Context, path string, pos capabilities.Position) ([]capabilities.Location, error) {
	return a.locations(ctx, path, "textDocument/typeDefinition", pos)
}

// locations merges Location, Location[] and LocationLink[] answers,
// sorted and without duplicates.
func (a *Adapter) locations(ctx context.Context, path, method string, pos capabilities.Position) ([]capabilities.Location, error) {
	answers, err := a.request(ctx, path, method, pos)
	if err != nil {
		return nil, err
	}
	type lspPos struct{ Line, Character int }
	type lspRange struct{ Start, End lspPos }
	type loc struct {
		URI                  string   `json:"uri"`
		Range                lspRange `json:"range"`
		TargetURI            string   `json:"targetUri"`
		TargetSelectionRange lspRange `json:"targetSelectionRange"`
	}
	seen := map[capabilities.Location]bool{}
	var out []capabilities.Location
	add := func(l loc) {
		uri, r := l.URI, l.Range
		if l.TargetURI != "" {
			uri, r = l.TargetURI, l.TargetSelectionRange
		}
		if uri == "" {
			return
		}
		c := capabilities.Location{Path: uriPath(uri), Line: r.Start.Line, Col: r.Start.Character}
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	var failures []string
	for _, ans := range answers {
		if ans.Error != "" {
			failures = append(failures, ans.Client+": "+ans.Error)
			continue
		}
		var one loc
		var many []loc
		if json.Unmarshal(ans.Result, &many) == nil {
			for _, l := range many {
				add(l)
			}
		} else if json.Unmarshal(ans.Result, &one) == nil {
			add(one)
		}
	}
	if len(out) == 0 && len(failures) == len(answers) && len(failures) > 0 {
		// Every server failed (or exited): "none found" would be a lie.
		return nil, fmt.Errorf("%s: %s", method, strings.Join(failures, "; "))
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Col < out[j].Col
	})
	return out, nil
}

func uriPath(uri string) string {
	if p, ok := strings.CutPrefix(uri, "file://"); ok {
		return unescape(p)
	}
	return uri
}

// unescape decodes %XX in a file URI path.
func unescape(p string) string {
	if !strings.Contains(p, "%") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '%' && i+2 < len(p) {
			var v byte
			if _, err := fmt.Sscanf(p[i+1:i+3], "%02x", &v); err == nil {
				b.WriteByte(v)
				i += 2
				continue
			}
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// AvailableWait bounds the question whether the LSP tools can answer
// (asked for every model request): a busy editor must not hold the
// request up.
const AvailableWait = time.Second

// Available reports whether the LSP tools can answer: a language server
// runs in the editor, or the user's configuration would start one for
// the workspace's files (it starts when a tool loads such a file; see
// lua/magenta/lsp_configured.lua). When the editor does not answer
// within AvailableWait it repeats the last answer.
func (a *Adapter) Available() bool {
	answer := make(chan bool, 1)
	go func() {
		var available bool
		if err := a.nv.ExecLua(`return require('magenta.lsp').available()`, &available); err != nil {
			available = false
		}
		answer <- available
	}()
	select {
	case available := <-answer:
		a.lastAvailable.Store(available)
		return available
	case <-time.After(AvailableWait):
		return a.lastAvailable.Load()
	}
}

// Diagnostics implements capabilities.DiagnosticsProvider.
func (a *Adapter) Diagnostics(ctx context.Context, path string) (capabilities.Diagnostics, error) {
	raw, err := a.call(ctx, "diagnostics", func(id int) error {
		return a.nv.ExecLua(`require('magenta.lsp').diagnostics(...)`, nil, id, path, DiagnosticsWait.Milliseconds(), ClientWait.Milliseconds())
	})
	if err != nil {
		return capabilities.Diagnostics{}, err
	}
	var answer struct {
		Items      json.RawMessage `json:"items"`
		Pending    json.RawMessage `json:"pending"`
		Unseen     json.RawMessage `json:"unseen"`
		Unattached json.RawMessage `json:"unattached"`
		Served     *int            `json:"served"`
	}
	var list []struct {
		Path     string `json:"path"`
		Line     int    `json:"line"`
		Col      int    `json:"col"`
		Severity int    `json:"severity"`
		Message  string `json:"message"`
		Source   string `json:"source"`
	}
	var out capabilities.Diagnostics
	if err := json.Unmarshal([]byte(raw), &answer); err != nil {
		return out, fmt.Errorf("diagnostics: undecodable answer: %w", err)
	}
	if err := jsonList(answer.Items, &list); err != nil {
		return out, fmt.Errorf("diagnostics: %w", err)
	}
	if err := jsonList(answer.Pending, &out.NotReported); err != nil {
		return out, fmt.Errorf("diagnostics: %w", err)
	}
	if err := jsonList(answer.Unseen, &out.Unseen); err != nil {
		return out, fmt.Errorf("diagnostics: %w", err)
	}
	if err := jsonList(answer.Unattached, &out.NoServer); err != nil {
		return out, fmt.Errorf("diagnostics: %w", err)
	}
	out.NoBufferServed = path == "" && answer.Served != nil && *answer.Served == 0
	out.Items = make([]capabilities.Diagnostic, len(list))
	for i, d := range list {
		out.Items[i] = capabilities.Diagnostic{Path: d.Path, Line: d.Line, Col: d.Col, Severity: severity(d.Severity), Message: d.Message, Source: d.Source}
	}
	return out, nil
}

// jsonList decodes a JSON list; an empty Lua table may arrive as {}.
func jsonList[T any](raw json.RawMessage, dst *[]T) error {
	if len(raw) == 0 || string(raw) == "{}" || string(raw) == "null" {
		return nil
	}
	return json.Unmarshal(raw, dst)
}

func severity(n int) string {
	switch n {
	case 1:
		return "error"
	case 2:
		return "warning"
	case 3:
		return "info"
	}
	return "hint"
}
