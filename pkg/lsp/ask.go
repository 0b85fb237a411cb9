package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// clientAnswer is one client's answer to an ask (lua/magenta/lsp_ask.lua).
type clientAnswer struct {
	Client   string          `json:"client"`
	ID       int             `json:"id"`
	Encoding string          `json:"encoding"`
	Result   json.RawMessage `json:"result"`
	Error    string          `json:"error"`
	// Exited: the server exited before it answered (a crash).
	Exited bool `json:"exited"`
	// Code actions (code_actions.go): whether the server resolves
	// actions, the commands it executes, the buffers a command changed.
	Resolvable bool            `json:"resolvable"`
	Commands   json.RawMessage `json:"commands"`
	Modified   json.RawMessage `json:"modified"`
}

// askSpec is what lsp_ask.lua's ask takes; zero fields are left out.
type askSpec struct {
	Method  string `msgpack:"method"`
	Path    string `msgpack:"path,omitempty"`
	Line    int    `msgpack:"line"`
	Col     int    `msgpack:"col"`
	EndLine int    `msgpack:"end_line"`
	Symbol  string `msgpack:"symbol,omitempty"`
	NewName string `msgpack:"new_name,omitempty"`
	Query   string `msgpack:"query"`
	WaitMS  int64  `msgpack:"wait_ms"`
}

// ask sends spec through lsp_ask.lua and returns the answers by client
// id (the order servers were started in, so "the first server" is the
// same every time). A position the file moved away from fails with
// capabilities.ErrStalePosition.
func (a *Adapter) ask(ctx context.Context, spec askSpec) ([]clientAnswer, error) {
	spec.WaitMS = ClientWait.Milliseconds()
	what := spec.Method
	if spec.Path != "" {
		what += " on " + spec.Path
	}
	raw, err := a.call(ctx, what, func(id int) error {
		return a.nv.ExecLua(`require('magenta.lsp').ask(...)`, nil, id, spec)
	})
	a.support.forget() // the request may have started a server
	if err != nil {
		return nil, err
	}
	var reply struct {
		Answers json.RawMessage `json:"answers"`
		Stale   string          `json:"stale"`
	}
	if err := json.Unmarshal([]byte(raw), &reply); err != nil {
		return nil, fmt.Errorf("%s: undecodable answer: %w", spec.Method, err)
	}
	if reply.Stale != "" {
		return nil, fmt.Errorf("%w: %s", capabilities.ErrStalePosition, reply.Stale)
	}
	var answers []clientAnswer
	if err := jsonList(reply.Answers, &answers); err != nil {
		return nil, fmt.Errorf("%s: undecodable answer: %w", spec.Method, err)
	}
	sort.Slice(answers, func(i, j int) bool { return answers[i].ID < answers[j].ID })
	return answers, nil
}

// failed is the error of a request every server failed: the first
// server's refusal as a *capabilities.ServerError, or the exits.
func failed(method string, answers []clientAnswer) error {
	var exits []string
	for _, ans := range answers {
		if ans.Error == "" {
			return nil
		}
		if ans.Exited {
			exits = append(exits, ans.Error)
		}
	}
	if len(answers) == 0 {
		return nil
	}
	if len(exits) == len(answers) {
		return fmt.Errorf("%s: %s (it may have crashed)", method, strings.Join(exits, "; "))
	}
	for _, ans := range answers {
		if !ans.Exited {
			return &capabilities.ServerError{Server: ans.Client, Method: method, Message: ans.Error}
		}
	}
	return nil
}

// SupportKeep is how long one answer to "what do the servers support"
// serves: the registry asks once per tool for every model request, and
// one round trip should answer them all.
const SupportKeep = 500 * time.Millisecond

// supportCache holds the last answer of lsp_ask.lua's supported().
type supportCache struct {
	mu         sync.Mutex
	at         time.Time
	methods    map[string]bool
	unstarted  bool
	refreshing chan struct{} // closed when the refresh under way ends
	started    time.Time     // when it began
	// stale is set when a request may have started a server: the answer
	// (or one being fetched) predates it and is not kept.
	stale bool
}

// forget drops the kept answer: a request may have started a server, and
// what it supports must be asked again (workspace_symbols is offered only
// once one runs).
func (s *supportCache) forget() {
	s.mu.Lock()
	s.at, s.stale = time.Time{}, s.refreshing != nil
	s.mu.Unlock()
}

// Supports implements capabilities.LspClient. A busy editor is waited
// for at most AvailableWait; the last answer stands in meanwhile.
func (a *Adapter) Supports(method string) capabilities.LSPSupport {
	s := &a.support
	s.mu.Lock()
	if s.at.IsZero() || time.Since(s.at) >= SupportKeep {
		done := s.refreshing
		if done == nil {
			done = make(chan struct{})
			s.refreshing, s.started = done, time.Now()
			go a.refreshSupport(done)
		}
		// Only the first asker waits: the next tools of the same
		// request take the last answer rather than each waiting again.
		if wait := AvailableWait - time.Since(s.started); wait > 0 {
			s.mu.Unlock()
			select {
			case <-done:
			case <-time.After(wait):
			}
			s.mu.Lock()
		}
	}
	defer s.mu.Unlock()
	switch {
	case s.methods[method]:
		return capabilities.LSPSupported
	case s.unstarted:
		return capabilities.LSPMaybe
	}
	return capabilities.LSPUnsupported
}

func (a *Adapter) refreshSupport(done chan struct{}) {
	var raw string
	err := a.nv.ExecLua(`return require('magenta.lsp').supported()`, &raw)
	var answer struct {
		Methods   json.RawMessage `json:"methods"`
		Unstarted bool            `json:"unstarted"`
	}
	var methods []string
	if err == nil {
		err = json.Unmarshal([]byte(raw), &answer)
	}
	if err == nil {
		err = jsonList(answer.Methods, &methods)
	}
	s := &a.support
	s.mu.Lock()
	if err == nil {
		s.methods = map[string]bool{}
		for _, m := range methods {
			s.methods[m] = true
		}
		s.unstarted = answer.Unstarted
	}
	s.at = time.Now() // a failure is not asked again at once either
	if s.stale {
		s.at, s.stale = time.Time{}, false // asked before the request that forgot it ended
	}
	s.refreshing = nil
	s.mu.Unlock()
	close(done)
}

// FilesChanged implements capabilities.LspClient.
func (a *Adapter) FilesChanged(ctx context.Context, paths []string) {
	if len(paths) == 0 {
		return
	}
	done := make(chan error, 1)
	go func() { done <- a.nv.ExecLua(`require('magenta.lsp_ask').files_changed(...)`, nil, paths) }()
	select {
	case <-done:
	case <-ctx.Done():
	case <-time.After(AvailableWait):
	}
}
