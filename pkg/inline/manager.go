package inline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// Request is one inline edit as Lua asks for it.
type Request struct {
	Buf int
	// ID tells this edit from an earlier one in the same buffer: Lua
	// ignores a result whose id it no longer waits for.
	ID        int
	Path      string
	Filetype  string
	StartLine int // 1-based, inclusive
	EndLine   int
	Selection string
	Before    string // the lines before the selection (trimmed to ContextLines)
	After     string
	Prompt    string
}

// Opener returns the provider, model and token limit of the current
// profile. It runs on the edit's goroutine (it may wait for the app).
type Opener func() (p provider.Provider, model string, maxTokens int, err error)

// Sink receives the outcome of an edit: the replacement text, or a
// message saying why there is none. It is called from the session's
// goroutine, once per edit that was not aborted. Before that, Partial
// gets the replacement as far as it has streamed, from another
// goroutine, never after the outcome.
type Sink interface {
	Partial(buf, id int, text string)
	Proposal(buf, id int, text string)
	Failed(buf, id int, msg string)
}

// Manager runs the inline edits, at most one per buffer. Safe for
// concurrent use.
type Manager struct {
	sink   Sink
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	running map[int]*session // by buffer
	wg      sync.WaitGroup
}

type session struct {
	id     int
	cancel context.CancelFunc
}

// NewManager returns a manager reporting to sink.
func NewManager(sink Sink) *Manager {
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{sink: sink, ctx: ctx, cancel: cancel, running: map[int]*session{}}
}

// Start runs r in its own goroutine on the provider open returns; an
// edit still running in the same buffer is aborted first.
func (m *Manager) Start(open Opener, r Request) {
	ctx, cancel := context.WithCancel(m.ctx)
	m.mu.Lock()
	if old := m.running[r.Buf]; old != nil {
		old.cancel()
	}
	s := &session{id: r.ID, cancel: cancel}
	m.running[r.Buf] = s
	m.wg.Add(1)
	m.mu.Unlock()
	go func() {
		defer m.wg.Done()
		defer cancel()
		pv := startPreview(func(text string) { m.sink.Partial(r.Buf, r.ID, text) })
		text, err := run(ctx, open, r, pv.set)
		pv.stop()
		m.mu.Lock()
		current := m.running[r.Buf] == s
		if current {
			delete(m.running, r.Buf)
		}
		m.mu.Unlock()
		switch {
		case ctx.Err() != nil || !current:
			// Aborted: Lua has already cleared the edit.
		case err != nil:
			m.sink.Failed(r.Buf, r.ID, err.Error())
		default:
			m.sink.Proposal(r.Buf, r.ID, text)
		}
	}()
}

// Abort cancels the edit running in buf, if any, and reports whether
// there was one.
func (m *Manager) Abort(buf int) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.running[buf]
	if s == nil {
		return false
	}
	s.cancel()
	delete(m.running, buf)
	return true
}

// Running returns the number of edits running (tests).
func (m *Manager) Running() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.running)
}

// Close aborts every edit and waits for their goroutines.
func (m *Manager) Close() {
	m.cancel()
	m.wg.Wait()
}

// run asks the model once and returns the replacement text.
func run(ctx context.Context, open Opener, r Request, partial func(string)) (text string, err error) {
	defer func() {
		if rec := recover(); rec != nil {
			slog.Error("inline edit panicked", "panic", rec, "stack", string(debug.Stack()))
			err = fmt.Errorf("internal error (a bug; see the log): %v", rec)
		}
	}()
	p, model, maxTokens, err := open()
	if err != nil {
		return "", err
	}
	r.Before = lastLines(r.Before, ContextLines)
	r.After = firstLines(r.After, ContextLines)
	req := provider.Request{
		Model:     model,
		System:    SystemPrompt,
		Messages:  []provider.Message{{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock(userMessage(r))}}},
		Tools:     []provider.ToolSpec{toolSpec},
		MaxTokens: maxTokens,
	}
	resp, err := p.Stream(ctx, req, streamed(partial))
	if err != nil {
		return "", err
	}
	return replacement(resp)
}

// streamed returns the stream's event handler: it follows the
// replace_selection call's input and reports its text as it grows.
func streamed(partial func(string)) func(provider.Event) {
	index := -1
	var raw strings.Builder
	last := ""
	return func(ev provider.Event) {
		switch ev := ev.(type) {
		case provider.ToolUseStart:
			if ev.Name == ToolName && index < 0 {
				index = ev.Index
			}
		case provider.ToolUseDelta:
			if ev.Index != index {
				return
			}
			raw.WriteString(ev.PartialJSON)
			if text, ok := partialText(raw.String()); ok && text != last {
				last = text
				partial(text)
			}
		}
	}
}

// replacement finds the replace_selection call in the reply.
func replacement(resp *provider.Response) (string, error) {
	var said []string
	for _, b := range resp.Message.Content {
		switch {
		case b.Kind == provider.BlockToolUse && b.ToolName == ToolName:
			var in toolInput
			if err := json.Unmarshal(b.Input, &in); err != nil {
				return "", fmt.Errorf("the model's %s input is not valid: %v", ToolName, err)
			}
			return in.Text, nil
		case b.Kind == provider.BlockText && strings.TrimSpace(b.Text) != "":
			said = append(said, strings.TrimSpace(b.Text))
		}
	}
	if resp.StopReason == provider.StopMaxTokens {
		return "", errors.New("the model ran out of tokens before proposing a replacement")
	}
	if len(said) > 0 {
		return "", fmt.Errorf("the model proposed no replacement; it said: %s", cut(strings.Join(said, " "), 300))
	}
	return "", errors.New("the model proposed no replacement")
}

// cut shortens s to about n bytes, on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
