package lspverify

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/memfs"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// fakeWatcher answers snapshots from a script: the first call gets
// before, later ones after. It reports instantly.
type fakeWatcher struct {
	capabilities.NoLSP
	mu            sync.Mutex
	before, after capabilities.DiagnosticsSnapshot
	calls         []string
	waits         []time.Duration
	holders       map[string]bool
	released      int
	fail          error
}

func (f *fakeWatcher) Snapshot(_ context.Context, path string, wait time.Duration, holder string) (capabilities.DiagnosticsSnapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, path)
	f.waits = append(f.waits, wait)
	if f.holders == nil {
		f.holders = map[string]bool{}
	}
	f.holders[holder] = true
	if f.fail != nil {
		return capabilities.DiagnosticsSnapshot{}, f.fail
	}
	if len(f.calls) == 1 {
		return f.before, nil
	}
	return f.after, nil
}

func (f *fakeWatcher) Release(_, holder string) {
	f.mu.Lock()
	if !f.holders[holder] {
		panic("released by a holder that took no snapshot")
	}
	f.released++
	f.mu.Unlock()
}

func callFor(w capabilities.DiagnosticsProvider, path string) tools.Call {
	in, _ := json.Marshal(map[string]string{"path": path})
	return tools.Call{Input: in, Env: &capabilities.Environment{Cwd: "/w", Files: memfs.New(), Diagnostics: w}}
}

// edited is a tool result for main.go whose diff inserts one line at the top.
func edited(context.Context) tools.Result {
	return tools.Result{Text: "Edited /w/main.go (1 replacement).", Diff: "--- main.go\n+++ main.go\n@@ -1,2 +1,3 @@\n+// top\n package main\n \n"}
}

func gopls(line int, sev, msg string) capabilities.Diagnostic {
	return capabilities.Diagnostic{Path: "/w/main.go", Line: line, Col: 1, Severity: sev, Message: msg, Source: "compiler", Server: "gopls"}
}

func TestInterceptorAppendsTheDelta(t *testing.T) {
	w := &fakeWatcher{
		before: capabilities.DiagnosticsSnapshot{Servers: []string{"gopls"}, Held: true,
			Items: []capabilities.Diagnostic{gopls(5, "error", "kept"), gopls(7, "warning", "gone")}},
		after: capabilities.DiagnosticsSnapshot{Servers: []string{"gopls"}, Held: true,
			Items: []capabilities.Diagnostic{gopls(6, "error", "kept"), gopls(2, "error", "undefined: y")}},
	}
	res := New(0).Intercept(context.Background(), "edit_file", callFor(w, "main.go"), edited)
	assert.Equal(t, "Edited /w/main.go (1 replacement).\n\n"+
		"Diagnostics after this edit: 1 introduced, 1 fixed\n"+
		"introduced: main.go:3:2 error undefined: y (compiler)\n"+
		"fixed: main.go:8:2 warning gone (compiler)", res.Text)
	assert.Equal(t, []string{"Diagnostics after this edit: 1 introduced, 1 fixed",
		"introduced: main.go:3:2 error undefined: y (compiler)", "fixed: main.go:8:2 warning gone (compiler)"}, res.Notes)
	assert.Equal(t, []string{"/w/main.go", "/w/main.go"}, w.calls)
	assert.Equal(t, []time.Duration{capabilities.LSPVerifyWait, capabilities.LSPVerifyWait}, w.waits)
	assert.Equal(t, 1, w.released, "the hold is given back once")
	assert.Len(t, w.holders, 1, "one holder for both snapshots")
}

func TestInterceptorNothingWhenUnchanged(t *testing.T) {
	items := []capabilities.Diagnostic{gopls(5, "error", "e")}
	moved := []capabilities.Diagnostic{gopls(6, "error", "e")}
	w := &fakeWatcher{before: capabilities.DiagnosticsSnapshot{Servers: []string{"gopls"}, Items: items},
		after: capabilities.DiagnosticsSnapshot{Servers: []string{"gopls"}, Items: moved}}
	res := New(time.Second).Intercept(context.Background(), "edit_file", callFor(w, "main.go"), edited)
	assert.Equal(t, "Edited /w/main.go (1 replacement).", res.Text)
	assert.Empty(t, res.Notes)
	assert.Equal(t, []time.Duration{time.Second, time.Second}, w.waits)
	assert.Zero(t, w.released, "nothing held, nothing released")
}

// No server follows the file: the edit runs, nothing is asked after it.
func TestInterceptorNoServer(t *testing.T) {
	w := &fakeWatcher{before: capabilities.DiagnosticsSnapshot{Held: true}}
	res := New(0).Intercept(context.Background(), "edit_file", callFor(w, "notes.md"), edited)
	assert.Equal(t, "Edited /w/main.go (1 replacement).", res.Text)
	assert.Len(t, w.calls, 1)
	assert.Equal(t, 1, w.released)
}

// A new file: everything after it is introduced.
func TestInterceptorNewFile(t *testing.T) {
	w := &fakeWatcher{before: capabilities.DiagnosticsSnapshot{Absent: true},
		after: capabilities.DiagnosticsSnapshot{Servers: []string{"gopls"}, Held: true, Items: []capabilities.Diagnostic{gopls(0, "error", "expected 'package'")}}}
	res := New(0).Intercept(context.Background(), "write_file", callFor(w, "new.go"), edited)
	assert.Contains(t, res.Text, "introduced: main.go:1:2 error expected 'package' (compiler)")
	assert.Equal(t, 1, w.released)
}

// Servers that did not report after, stopped, or never reported before
// are named, and their diagnostics not compared.
func TestInterceptorNamesServersItCannotCompare(t *testing.T) {
	pylsp := func(line int, msg string) capabilities.Diagnostic {
		d := gopls(line, "error", msg)
		d.Server, d.Source = "pylsp", "pyflakes"
		return d
	}
	clangd := gopls(1, "error", "crashed one")
	clangd.Server = "clangd"
	w := &fakeWatcher{
		before: capabilities.DiagnosticsSnapshot{Servers: []string{"gopls", "pylsp", "clangd"}, Silent: []string{"gopls"},
			Items: []capabilities.Diagnostic{pylsp(3, "old"), clangd}},
		after: capabilities.DiagnosticsSnapshot{Servers: []string{"gopls", "pylsp"}, Pending: []string{"pylsp"},
			Items: []capabilities.Diagnostic{gopls(4, "error", "cold"), pylsp(4, "stale")}},
	}
	res := New(3*time.Second).Intercept(context.Background(), "edit_file", callFor(w, "main.go"), edited)
	assert.Equal(t, []string{
		"pylsp had not reported on the new text after 3s: its diagnostics are not compared (call diagnostics for them).",
		"clangd stopped while the edit was checked: its diagnostics are not compared.",
		"gopls had not reported on the file before the edit (within 3s), so its 1 diagnostics cannot be told apart: call diagnostics for them.",
	}, res.Notes)
}

func TestInterceptorSkips(t *testing.T) {
	w := &fakeWatcher{before: capabilities.DiagnosticsSnapshot{Servers: []string{"gopls"}}}
	ic := New(0)
	ran := 0
	next := func(ctx context.Context) tools.Result { ran++; return edited(ctx) }
	for _, c := range []struct {
		name, tool string
		call       tools.Call
	}{
		{"another tool", "get_file", callFor(w, "main.go")},
		{"outside the workspace", "edit_file", callFor(w, "/etc/hosts")},
		{"climbing out", "edit_file", callFor(w, "../x/main.go")},
		{"home", "edit_file", callFor(w, "~/main.go")},
		{"git's files", "write_file", callFor(w, ".git/info/exclude")},
		{"no LSP", "edit_file", callFor(capabilities.NoLSP{}, "main.go")},
		{"no diagnostics", "edit_file", callFor(nil, "main.go")},
		{"no env", "edit_file", tools.Call{Input: []byte(`{"path":"main.go"}`)}},
	} {
		if c.name == "no diagnostics" {
			c.call.Env.Diagnostics = nil
		}
		res := ic.Intercept(context.Background(), c.tool, c.call, next)
		assert.Equal(t, "Edited /w/main.go (1 replacement).", res.Text, c.name)
	}
	assert.Equal(t, 8, ran)
	assert.Empty(t, w.calls, "no snapshot taken")
}

// A failed edit gets no check after it (and its hold is given back).
func TestInterceptorErrorResult(t *testing.T) {
	w := &fakeWatcher{before: capabilities.DiagnosticsSnapshot{Servers: []string{"gopls"}, Held: true}}
	res := New(0).Intercept(context.Background(), "edit_file", callFor(w, "main.go"), func(context.Context) tools.Result {
		return tools.Errorf("old_string not found")
	})
	require.True(t, res.IsError)
	assert.Equal(t, "old_string not found", res.Text)
	assert.Len(t, w.calls, 1)
	assert.Equal(t, 1, w.released)
}

// A snapshot that failed may have taken a hold: it is given back, and
// the edit runs unchecked.
func TestInterceptorSnapshotFails(t *testing.T) {
	w := &fakeWatcher{fail: capabilities.ErrEditorNotAnswering}
	res := New(0).Intercept(context.Background(), "edit_file", callFor(w, "main.go"), edited)
	assert.Equal(t, "Edited /w/main.go (1 replacement).", res.Text)
	assert.Equal(t, 1, w.released)
}

// Each check holds under its own name.
func TestInterceptorHoldersDiffer(t *testing.T) {
	w := &fakeWatcher{before: capabilities.DiagnosticsSnapshot{Held: true}}
	ic := New(0)
	ic.Intercept(context.Background(), "edit_file", callFor(w, "a.go"), edited)
	w.calls = nil
	ic.Intercept(context.Background(), "edit_file", callFor(w, "a.go"), edited)
	assert.Len(t, w.holders, 2)
}

// refusingFiles refuses every read without a question, as the guard does
// for a secret.
type refusingFiles struct{ capabilities.FileIO }

func (refusingFiles) CheckRead(_ context.Context, path string) error {
	return &capabilities.DeniedError{What: path, Reason: "a secret"}
}

func TestInterceptorSkipsFilesTheModelMayNotRead(t *testing.T) {
	w := &fakeWatcher{before: capabilities.DiagnosticsSnapshot{Servers: []string{"gopls"}}}
	call := callFor(w, ".env")
	call.Env.Files = refusingFiles{memfs.New()}
	New(0).Intercept(context.Background(), "write_file", call, edited)
	assert.Empty(t, w.calls)
}

// BenchmarkInterceptor is the interceptor's own cost around an edit,
// with a watcher that reports at once (the servers' time is not its):
// two snapshots, the delta of 40 diagnostics, the result's text.
func BenchmarkInterceptor(b *testing.B) {
	var before, after []capabilities.Diagnostic
	for i := range 40 {
		before = append(before, gopls(i*3, "warning", "w"))
		after = append(after, gopls(i*3+1, "warning", "w"))
	}
	after = append(after, gopls(2, "error", "new"))
	w := &fakeWatcher{before: capabilities.DiagnosticsSnapshot{Servers: []string{"gopls"}, Items: before},
		after: capabilities.DiagnosticsSnapshot{Servers: []string{"gopls"}, Items: after}}
	ic := New(0)
	call := callFor(w, "main.go")
	b.ReportAllocs()
	for b.Loop() {
		w.calls = w.calls[:0]
		w.waits = w.waits[:0]
		res := ic.Intercept(context.Background(), "edit_file", call, edited)
		if len(res.Notes) != 2 {
			b.Fatal(res.Notes)
		}
	}
}
