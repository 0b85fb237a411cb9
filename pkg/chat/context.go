package chat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/edit"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

// ContextFileMaxBytes caps a context file sent whole; larger files are
// named with a pointer to get_file instead, after a stat and without
// reading more than this (plus one byte, to notice a file that grew).
const ContextFileMaxBytes = 200 << 10

// contextFile is a file the user attached to the thread. sent is the
// content the model last saw ("" before the first send).
type contextFile struct {
	path, rel string
	sent      string
	seen      bool
}

type (
	msgAddContext    struct{ paths []string }
	msgRemoveContext struct{ path string }
	// msgContextRead carries the user text and the context blocks read for
	// it on a worker goroutine, and the prompt check's verdict.
	msgContextRead struct {
		waiting []*entry // the waiting messages the files were read for
		blocks  []provider.Block
		verdict PromptVerdict
		checked bool              // the prompt check ran
		updated map[string]string // path → content now sent
		missing map[string]bool
		refused []string // what the chat says about files the check refused
	}
)

// AddContext attaches files (absolute paths) to the thread.
func (t *Thread) AddContext(paths []string) { t.enqueue(msgAddContext{paths}) }

func (t *Thread) onAddContext(paths []string) {
	for _, p := range paths {
		p = filepath.Clean(p)
		if t.contextIndex(p) >= 0 {
			continue
		}
		rel := p
		if r, err := filepath.Rel(t.deps.Env.Cwd, p); err == nil && !strings.HasPrefix(r, "..") {
			rel = r
		}
		t.context = append(t.context, &contextFile{path: p, rel: rel})
	}
	t.contextVersion++
	t.dirty = true
}

func (t *Thread) onRemoveContext(path string) {
	if i := t.contextIndex(path); i >= 0 {
		t.context = append(t.context[:i], t.context[i+1:]...)
		t.contextVersion++
		t.dirty = true
	}
}

func (t *Thread) contextIndex(path string) int {
	for i, c := range t.context {
		if c.path == path {
			return i
		}
	}
	return -1
}

// readContext reads the context files for user messages on a worker
// goroutine (reading may go through Neovim), checks them with the
// prompt check when there is one (hookpoints.go), and reports back.
func (t *Thread) readContext(waiting []*entry) {
	files := make([]contextFile, len(t.context))
	for i, c := range t.context {
		files[i] = *c
	}
	fs := t.deps.ContextFiles
	// The thread's own approvals (a YES to get_file of the same path)
	// hold for its context files too.
	ctx := capabilities.WithCall(t.ctx, capabilities.CallInfo{ThreadID: t.ID})
	prompt, check := t.promptFor(waiting)
	checkCtx := t.promptContext(check)
	t.workers.Add(1)
	go func() {
		defer t.workers.Done()
		msg := msgContextRead{waiting: waiting, updated: map[string]string{}, missing: map[string]bool{}}
		for _, f := range files {
			block, now, missing, refused := readContextBlock(ctx, fs, f)
			if missing {
				msg.missing[f.path] = true
			}
			if refused != nil {
				msg.refused = append(msg.refused, fmt.Sprintf("Context file %s was not sent: %v", f.rel, refused))
			}
			if block != "" {
				msg.blocks = append(msg.blocks, provider.TextBlock(block))
				msg.updated[f.path] = now
			}
		}
		if check {
			msg.verdict, msg.checked = t.runPromptCheck(checkCtx, prompt), true
		}
		t.enqueue(msg)
	}()
}

// contextBlock is what the model gets for one context file: the whole
// file the first time, then a diff when it changed, nothing when not.
func contextBlock(ctx context.Context, fs capabilities.FileIO, f contextFile) (block, now string, missing bool) {
	block, now, missing, _ = readContextBlock(ctx, fs, f)
	return block, now, missing
}

// readContextBlock is contextBlock that also returns the refusal when
// the file check refused the file (a secret, a file outside the
// workspace, a link to one): the model is told it was withheld and that
// get_file asks for it; nothing of the file is sent.
func readContextBlock(ctx context.Context, fs capabilities.FileIO, f contextFile) (block, now string, missing bool, refused error) {
	if fs == nil {
		return "", "", false, nil
	}
	data, err := readContextFile(ctx, fs, f.path)
	var tooLarge *capabilities.TooLargeError
	switch {
	case errors.Is(err, capabilities.ErrPermissionDenied):
		return fmt.Sprintf("Context file %s was not included: %v. Read it with get_file if you need it (the user is asked).", f.rel, err), "", false, err
	case errors.Is(err, capabilities.ErrNotExist):
		if f.seen {
			return fmt.Sprintf("Context file %s was deleted.", f.rel), "", true, nil
		}
		return fmt.Sprintf("Context file %s does not exist.", f.rel), "", true, nil
	case errors.As(err, &tooLarge):
		return fmt.Sprintf("Context file %s is %d bytes, too large to include (the limit is %d KB); read the parts you need with get_file.", f.rel, tooLarge.Size, ContextFileMaxBytes>>10), "", false, nil
	case errors.Is(err, capabilities.ErrNotRegular):
		return fmt.Sprintf("Context file %s is not a regular file (a FIFO, device or socket); it is not included.", f.rel), "", false, nil
	case err != nil:
		return fmt.Sprintf("Context file %s could not be read: %v", f.rel, err), "", false, nil
	}
	now = string(data)
	switch {
	case !f.seen:
		return fmt.Sprintf("Context file %s:\n```\n%s\n```", f.rel, strings.TrimRight(now, "\n")), now, false, nil
	case now == f.sent:
		return "", now, false, nil
	}
	return fmt.Sprintf("Context file %s changed since you last saw it:\n```diff\n%s```", f.rel, edit.Diff(f.rel, f.sent, now, 3)), now, false, nil
}

// readContextFile reads path unless it is over ContextFileMaxBytes: the
// size is checked first (a buffer's without copying its text) and at most
// the cap plus one byte is read. Open refuses FIFOs and devices, which
// would block the read forever; ctx ends the read with the thread.
func readContextFile(ctx context.Context, fs capabilities.FileIO, path string) ([]byte, error) {
	info, err := fs.Stat(ctx, path)
	switch {
	case err != nil:
		return nil, err
	case info.IsDir:
		return nil, fmt.Errorf("%s: %w", path, capabilities.ErrIsDirectory)
	case info.Size > ContextFileMaxBytes:
		return nil, &capabilities.TooLargeError{Size: info.Size, Max: ContextFileMaxBytes}
	}
	r, err := fs.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, ContextFileMaxBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > ContextFileMaxBytes {
		return nil, &capabilities.TooLargeError{Size: int64(len(data)), Max: ContextFileMaxBytes}
	}
	return data, nil
}

// onContextRead sends the user's messages with their context blocks
// first, unless the prompt check refused them.
func (t *Thread) onContextRead(m msgContextRead) {
	for _, r := range m.refused {
		t.notice(view.NoticeWarning, r)
	}
	if !t.stillWaiting(m.waiting) {
		t.readingContext = false // not expected: the message is gone
		t.dispatch()
		return
	}
	if !t.applyPrompt(m.waiting, m.verdict, m.checked) {
		t.dispatch() // refused: what was sent after it goes on
		return
	}
	for _, c := range t.context {
		if now, ok := m.updated[c.path]; ok {
			c.sent, c.seen = now, true
		}
	}
	// The others wait behind its turn.
	t.sendWaiting(len(m.waiting), append(m.blocks, promptBlocks(m.verdict)...))
}

// stillWaiting reports whether batch is still the head of the queue.
func (t *Thread) stillWaiting(batch []*entry) bool {
	if len(batch) == 0 || len(t.pending) < len(batch) {
		return false
	}
	for i, e := range batch {
		if t.pending[i] != e {
			return false
		}
	}
	return true
}
