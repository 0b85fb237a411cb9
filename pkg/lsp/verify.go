package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

var _ capabilities.DiagnosticsWatcher = (*Adapter)(nil)

// Snapshot implements capabilities.DiagnosticsWatcher (see
// lua/magenta/lsp_reports.lua's snapshot).
func (a *Adapter) Snapshot(ctx context.Context, path string, wait time.Duration, holder string) (capabilities.DiagnosticsSnapshot, error) {
	attach := min(capabilities.LSPVerifyAttachWait, wait)
	// Bounded by the wait, not by RequestTimeout: an editor held at a
	// prompt must not hold the edit's result longer than the check may.
	ctx, cancel := context.WithTimeout(ctx, wait+attach+time.Second)
	defer cancel()
	raw, err := a.call(ctx, "diagnostics of "+path, func(id int) error {
		return a.nv.ExecLua(`require('magenta.lsp_reports').snapshot(...)`, nil, id, path, wait.Milliseconds(), attach.Milliseconds(), holder)
	})
	if err != nil {
		return capabilities.DiagnosticsSnapshot{}, err
	}
	return decodeSnapshot(raw)
}

// Release implements capabilities.DiagnosticsWatcher. It runs on its own
// goroutine: the result it follows must not wait for an editor that is
// busy (a prompt), and a release that never lands only leaves a hidden
// buffer loaded. Neovim runs requests in order, so it comes after every
// snapshot sent before it.
func (a *Adapter) Release(path, holder string) {
	go func() {
		if err := a.nv.ExecLua(`require('magenta.lsp_reports').release(...)`, nil, path, holder); err != nil {
			slog.Warn("releasing a buffer loaded for an edit check", "path", path, "err", err)
		}
	}()
}

func decodeSnapshot(raw string) (capabilities.DiagnosticsSnapshot, error) {
	var answer struct {
		Items   json.RawMessage `json:"items"`
		Servers json.RawMessage `json:"servers"`
		Pending json.RawMessage `json:"pending"`
		Silent  json.RawMessage `json:"silent"`
		Absent  bool            `json:"absent"`
		Held    bool            `json:"held"`
	}
	var list []struct {
		Path     string `json:"path"`
		Line     int    `json:"line"`
		Col      int    `json:"col"`
		Severity int    `json:"severity"`
		Message  string `json:"message"`
		Source   string `json:"source"`
		Server   string `json:"server"`
	}
	var out capabilities.DiagnosticsSnapshot
	if err := json.Unmarshal([]byte(raw), &answer); err != nil {
		return out, fmt.Errorf("diagnostics snapshot: undecodable answer: %w", err)
	}
	out.Absent, out.Held = answer.Absent, answer.Held
	for _, f := range []struct {
		raw json.RawMessage
		dst *[]string
	}{{answer.Servers, &out.Servers}, {answer.Pending, &out.Pending}, {answer.Silent, &out.Silent}} {
		if err := jsonList(f.raw, f.dst); err != nil {
			return out, fmt.Errorf("diagnostics snapshot: %w", err)
		}
	}
	if err := jsonList(answer.Items, &list); err != nil {
		return out, fmt.Errorf("diagnostics snapshot: %w", err)
	}
	out.Items = make([]capabilities.Diagnostic, len(list))
	for i, d := range list {
		out.Items[i] = capabilities.Diagnostic{Path: d.Path, Line: d.Line, Col: d.Col, Severity: severity(d.Severity),
			Message: d.Message, Source: d.Source, Server: d.Server}
	}
	return out, nil
}
