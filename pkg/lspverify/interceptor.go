package lspverify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// Verifier is the tools.Interceptor that appends to an edit's result the
// diagnostics it introduced or fixed. Safe for concurrent use (it holds
// only its settings).
type Verifier struct {
	wait     time.Duration
	maxLines int
}

var _ tools.Interceptor = (*Verifier)(nil)

// New returns a Verifier that waits up to wait (0:
// capabilities.LSPVerifyWait) for the servers' reports before and after
// an edit.
func New(wait time.Duration) *Verifier {
	if wait <= 0 {
		wait = capabilities.LSPVerifyWait
	}
	return &Verifier{wait: wait, maxLines: capabilities.LSPVerifyMaxLines}
}

// checks numbers the checks, so each holds a hidden buffer under its own
// name.
var checks atomic.Uint64

// checked are the tools whose result is verified: they change one file,
// named by their "path" input.
var checked = map[string]bool{"edit_file": true, "write_file": true}

// Intercept implements tools.Interceptor.
func (v *Verifier) Intercept(ctx context.Context, name string, call tools.Call, next tools.Next) tools.Result {
	w, path := v.target(ctx, name, call)
	if w == nil {
		return next(ctx)
	}
	// The hold on a hidden buffer is given back when the check took one,
	// or may have (a snapshot that failed, an abort, may have taken one
	// the answer did not tell).
	holder := fmt.Sprintf("check-%d", checks.Add(1))
	holding := false
	defer func() {
		if holding {
			w.Release(path, holder)
		}
	}()
	before, err := w.Snapshot(ctx, path, v.wait, holder)
	holding = before.Held || err != nil
	if err != nil {
		slog.Debug("edit check: no snapshot before the edit", "path", path, "err", err)
		return next(ctx)
	}
	if !before.Absent && len(before.Servers) == 0 && len(before.Pending) == 0 {
		return next(ctx) // no server follows the file
	}
	res := next(ctx)
	if res.IsError || ctx.Err() != nil {
		return res
	}
	after, err := w.Snapshot(ctx, path, v.wait, holder)
	holding = holding || after.Held || err != nil
	if err != nil {
		slog.Debug("edit check: no snapshot after the edit", "path", path, "err", err)
		return res
	}
	lines := v.report(call.Env.Cwd, before, after, res.Diff)
	if len(lines) == 0 {
		return res
	}
	res.Text = strings.TrimRight(res.Text, "\n") + "\n\n" + strings.Join(lines, "\n")
	res.Notes = append(res.Notes, lines...)
	return res
}

// target returns the watcher and the file when the call is one to check:
// a file-changing tool, in an environment whose diagnostics come from
// the editor's servers, on a file inside the workspace (the servers
// follow the workspace) that the model may read without asking (a
// server's words about a file carry its content).
func (v *Verifier) target(ctx context.Context, name string, call tools.Call) (capabilities.DiagnosticsWatcher, string) {
	if !checked[name] || call.Env == nil || call.Env.Diagnostics == nil {
		return nil, ""
	}
	w, ok := call.Env.Diagnostics.(capabilities.DiagnosticsWatcher)
	if !ok {
		return nil, "" // NoLSP, Docker, memory
	}
	var in struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(call.Input, &in) != nil || in.Path == "" || strings.HasPrefix(in.Path, "~") {
		return nil, ""
	}
	path := in.Path
	if !filepath.IsAbs(path) {
		path = filepath.Join(call.Env.Cwd, path)
	}
	path = filepath.Clean(path)
	rel, err := filepath.Rel(call.Env.Cwd, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return nil, ""
	}
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if part == ".git" {
			return nil, "" // no server follows git's files
		}
	}
	if readRefused(ctx, call.Env.Files, path) {
		return nil, ""
	}
	return w, path
}

// readChecker is guard.FileIO's check of a read that reads nothing.
type readChecker interface {
	CheckRead(ctx context.Context, path string) error
}

// readRefused reports whether the read check refuses path without a
// question (a secret, a rule); a file that does not exist yet is no
// refusal.
func readRefused(ctx context.Context, files capabilities.FileIO, path string) bool {
	quiet := capabilities.WithoutQuestions(ctx)
	var err error
	switch f := files.(type) {
	case nil:
		return false
	case readChecker:
		err = f.CheckRead(quiet, path)
	default:
		_, err = f.Stat(quiet, path)
	}
	var denied *capabilities.DeniedError
	return errors.As(err, &denied)
}

// report is what the model and the user are told: the delta, then which
// servers' diagnostics could not be compared and why. Nil when there is
// nothing to say.
func (v *Verifier) report(cwd string, before, after capabilities.DiagnosticsSnapshot, diff string) []string {
	var notes []string
	skip := map[string]bool{}
	wait := v.wait.String()
	for _, s := range unique(after.Pending) {
		skip[s] = true
		notes = append(notes, fmt.Sprintf("%s had not reported on the new text after %s: its diagnostics are not compared (call diagnostics for them).", s, wait))
	}
	attached := set(after.Servers)
	for _, s := range unique(before.Servers) {
		if !attached[s] && !skip[s] {
			skip[s] = true
			notes = append(notes, fmt.Sprintf("%s stopped while the edit was checked: its diagnostics are not compared.", s))
		}
	}
	if !before.Absent {
		for _, s := range unique(before.Silent) {
			if n := count(after.Items, s); n > 0 && !skip[s] {
				skip[s] = true
				notes = append(notes, fmt.Sprintf("%s had not reported on the file before the edit (within %s), so its %d diagnostics cannot be told apart: call diagnostics for them.", s, wait, n))
			}
		}
	}
	var old []capabilities.Diagnostic
	if !before.Absent {
		old = without(before.Items, skip)
	}
	delta := Compare(old, without(after.Items, skip), ParseDiff(diff))
	return append(delta.Lines(cwd, v.maxLines), notes...)
}

func without(ds []capabilities.Diagnostic, servers map[string]bool) []capabilities.Diagnostic {
	out := make([]capabilities.Diagnostic, 0, len(ds))
	for _, d := range ds {
		if !servers[d.Server] || d.Server == "" {
			out = append(out, d)
		}
	}
	return out
}

func count(ds []capabilities.Diagnostic, server string) int {
	n := 0
	for _, d := range ds {
		if d.Server == server {
			n++
		}
	}
	return n
}

func set(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// unique keeps the first of each name, in order (two clients of one
// server are named once).
func unique(names []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}
