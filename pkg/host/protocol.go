package host

import (
	"fmt"
	"os"
	"reflect"
	"slices"

	"github.com/magenta-nvim/magenta/pkg/chat"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
)

// The edge between Lua and the host: every event (MagentaEvent, sent by
// host.notify) and request (MagentaRequest, or the "request" event that
// host.request sends) by name, with the struct its payload decodes into
// and its handler. lua/magenta/protocol.lua lists the same names for the
// Lua call sites; TestLuaProtocolMatchesHost fails when the two drift.

// eventSpec is one event: its payload's type and what it does.
type eventSpec struct {
	// noApp events are handled before the host is attached, or without
	// its app: they attach it, configure it, or carry Lua's plumbing
	// (answers from language servers, requests, terminals, the display).
	noApp   bool
	payload reflect.Type
	// run decodes the payload and handles it; the error is the decode's.
	run func(h *Host, app *chat.App, payload map[string]any) error
}

// hostEvent is an event handled without the app.
func hostEvent[P any](fn func(h *Host, p P)) eventSpec {
	return eventSpec{noApp: true, payload: reflect.TypeFor[P](), run: func(h *Host, _ *chat.App, m map[string]any) error {
		var p P
		if err := decodePayload(m, &p); err != nil {
			return err
		}
		fn(h, p)
		return nil
	}}
}

// appEvent is an event for the attached app.
func appEvent[P any](fn func(h *Host, app *chat.App, p P)) eventSpec {
	return eventSpec{payload: reflect.TypeFor[P](), run: func(h *Host, app *chat.App, m map[string]any) error {
		var p P
		if err := decodePayload(m, &p); err != nil {
			return err
		}
		fn(h, app, p)
		return nil
	}}
}

// requestSpec is one request: its payload's type and its answer.
type requestSpec struct {
	payload reflect.Type
	run     func(h *Host, payload map[string]any) (any, error)
}

func request[P any](fn func(h *Host, p P) (any, error)) requestSpec {
	return requestSpec{payload: reflect.TypeFor[P](), run: func(h *Host, m map[string]any) (any, error) {
		var p P
		if err := decodePayload(m, &p); err != nil {
			return nil, err
		}
		return fn(h, p)
	}}
}

// noPayload is the payload of an event or request that has no fields.
type noPayload struct{}

// Event payloads, by event name.
type (
	// attach: the options Lua sends when it starts a host (and again
	// after a restart); display is the sidebar's buffer when it exists.
	attachEvent struct {
		Display int    `payload:"display"`
		Options string `payload:"options"` // JSON, decoded by pkg/config
		Cwd     string `payload:"cwd"`
		DataDir string `payload:"dataDir"`
		Resume  string `payload:"resume"` // the thread the previous host showed
	}
	// lsp_result: a language server's answer to pkg/lsp (lua/magenta/lsp.lua).
	lspResultEvent struct {
		ID      int    `payload:"id,required"`
		Results string `payload:"results"` // JSON
		Error   string `payload:"error"`
	}
	// configure: options sent again by setup() while the host runs.
	configureEvent struct {
		Options string `payload:"options"`
	}
	// request: the asynchronous form of MagentaRequest (reply.go).
	requestEvent struct {
		ID      int    `payload:"id,required"`
		Name    string `payload:"name"` // checked by onRequest, which answers
		Payload any    `payload:"payload"`
	}
	// terminal_input: keys typed in a terminal window (lua/magenta/terminal.lua).
	terminalInputEvent struct {
		ID   int    `payload:"id,required"`
		Data string `payload:"data"` // raw bytes, str or bin
	}
	terminalResizeEvent struct {
		ID   int `payload:"id,required"`
		Rows int `payload:"rows"`
		Cols int `payload:"cols"`
	}
	terminalClosedEvent struct {
		ID int `payload:"id,required"`
	}
	// display: the buffer the chat is drawn into (0: none).
	displayEvent struct {
		Buf int `payload:"buf"`
	}
	sendEvent struct {
		Text        string      `payload:"text"`
		Attachments attachments `payload:"attachments"`
	}
	// new_thread: an environment type ("" for the option's default,
	// "local", "docker", "ssh"); for docker its container and context
	// ("" the CLI's current one), for ssh its host; and the cwd there.
	newThreadEvent struct {
		Type      string `payload:"type"`
		Container string `payload:"container"`
		Context   string `payload:"context"`
		Host      string `payload:"host"`
		Cwd       string `payload:"cwd"`
	}
	threadEvent struct {
		ID string `payload:"id"`
	}
	deleteThreadEvent struct {
		ID string `payload:"id"`
	}
	profileEvent struct {
		Name string `payload:"name"`
	}
	contextFilesEvent struct {
		Paths []string `payload:"paths"`
	}
	attachFilesEvent struct {
		Paths []string `payload:"paths"`
	}
	// key: a key pressed in the display, on a line of the frame Neovim
	// showed (0: the latest).
	keyEvent struct {
		Key   string `payload:"key"`
		Line  int    `payload:"line"`
		Frame int    `payload:"frame"`
	}
	// inline_edit: lua/magenta/inline.lua; inlineEdit checks what it needs.
	inlineEditEvent struct {
		Buf       int    `payload:"buf"`
		ID        int    `payload:"id"`
		Path      string `payload:"path"`
		Filetype  string `payload:"filetype"`
		Start     int    `payload:"start"`
		End       int    `payload:"end"`
		Selection string `payload:"selection"`
		Before    string `payload:"before"`
		After     string `payload:"after"`
		Prompt    string `payload:"prompt"`
	}
	inlineAbortEvent struct {
		Buf int `payload:"buf"`
	}
)

// Request payloads, by request name.
type (
	gitDiffReq struct {
		Cwd     string `payload:"cwd"`
		Staged  bool   `payload:"staged"`
		Path    string `payload:"path"`
		Timeout int    `payload:"timeout"` // ms
	}
	// check_paths: paths stay []any so that each item that is not a
	// path gets its own answer, in order.
	checkPathsReq struct {
		Paths []any `payload:"paths"`
	}
	// containers: the Docker context whose containers to list ("" the
	// CLI's current one).
	containersReq struct {
		Context string `payload:"context"`
	}
)

// events is every MagentaEvent by name.
var events = map[string]eventSpec{
	"attach": hostEvent(func(h *Host, p attachEvent) {
		h.attach(p)
		if p.Display != 0 { // a new host while the sidebar exists
			h.sidebarOpened()
		}
	}),
	"lsp_result": hostEvent(func(h *Host, p lspResultEvent) { h.lsp.Deliver(p.ID, p.Results, p.Error) }),
	"configure":  hostEvent((*Host).configure),
	"request":    hostEvent((*Host).answerAsync),
	// Terminal events only enqueue.
	"terminal_input":  hostEvent(func(h *Host, p terminalInputEvent) { h.terms.Input(p.ID, p.Data) }),
	"terminal_resize": hostEvent(func(h *Host, p terminalResizeEvent) { h.terms.Resize(p.ID, p.Rows, p.Cols) }),
	"terminal_closed": hostEvent(func(h *Host, p terminalClosedEvent) { h.terms.Closed(p.ID) }),
	"display": hostEvent(func(h *Host, p displayEvent) {
		if !h.setDisplay(p.Buf) {
			return
		}
		if p.Buf != 0 { // the sidebar's buffers were made: it opens
			h.sidebarOpened()
		}
		if app := h.App(); app != nil {
			app.Refresh()
		}
	}),

	"send":          appEvent(func(h *Host, app *chat.App, p sendEvent) { h.send(app, p) }),
	"abort":         appEvent(func(_ *Host, app *chat.App, _ noPayload) { app.Abort() }),
	"compact":       appEvent(func(_ *Host, app *chat.App, _ noPayload) { app.Compact() }),
	"new_thread":    appEvent((*Host).newThread),
	"threads":       appEvent(func(_ *Host, app *chat.App, _ noPayload) { app.ShowThreads() }),
	"thread":        appEvent(func(_ *Host, app *chat.App, p threadEvent) { app.SelectThread(p.ID) }),
	"delete_thread": appEvent(func(_ *Host, app *chat.App, p deleteThreadEvent) { app.DeleteThread(p.ID) }),
	"profile":       appEvent(func(_ *Host, app *chat.App, p profileEvent) { app.SetProfile(p.Name) }),
	"context_files": appEvent(func(_ *Host, app *chat.App, p contextFilesEvent) { app.AddContext(nonEmpty(p.Paths)) }),
	// :Magenta add-buffer: says what it added, and where.
	"attach_files": appEvent(func(_ *Host, app *chat.App, p attachFilesEvent) { app.AttachFiles(nonEmpty(p.Paths)) }),
	"key":          appEvent(func(_ *Host, app *chat.App, p keyEvent) { app.KeyOnFrame(view.Key(p.Key), p.Line, p.Frame) }),
	"inline_edit":  appEvent((*Host).inlineEdit),
	"inline_abort": appEvent(func(h *Host, _ *chat.App, p inlineAbortEvent) { h.inline.Abort(p.Buf) }),
	"mcp_trust":    appEvent(func(h *Host, _ *chat.App, _ noPayload) { h.mcpTrust(true) }),
	"mcp_untrust":  appEvent(func(h *Host, _ *chat.App, _ noPayload) { h.mcpTrust(false) }),
	// :Magenta hooks-trust / hooks-untrust (hooks.go).
	"hooks_trust":   appEvent(func(h *Host, _ *chat.App, _ noPayload) { h.hooksTrust(true) }),
	"hooks_untrust": appEvent(func(h *Host, _ *chat.App, _ noPayload) { h.hooksTrust(false) }),
	// :Magenta rewind (lua/magenta/rewind.lua, pkg/host/rewind.go).
	"rewind": appEvent((*Host).rewind),
	// :Magenta plan: plan mode on or off for the shown thread.
	"plan": appEvent(func(_ *Host, app *chat.App, _ noPayload) { app.TogglePlanMode() }),
}

// requests is every MagentaRequest by name.
var requests = map[string]requestSpec{
	"version": request(func(h *Host, _ noPayload) (any, error) {
		return map[string]any{"version": h.opts.Version, "pid": os.Getpid(), "log": h.opts.LogPath}, nil
	}),
	"ping":           request(func(*Host, noPayload) (any, error) { return "pong", nil }),
	"rewind_list":    request((*Host).rewindList),
	"rewind_preview": request((*Host).rewindPreview),
	"git_diff":       request(func(h *Host, p gitDiffReq) (any, error) { return h.gitDiffRequest(p), nil }),
	"check_paths":    request(func(h *Host, p checkPathsReq) (any, error) { return h.checkPathsRequest(p), nil }),
	"rg":             request(func(h *Host, _ noPayload) (any, error) { return h.rgInfo(), nil }),
	"mcp":            request(func(h *Host, _ noPayload) (any, error) { return h.mcpStatus(), nil }),
	"mcp_project":    request(func(h *Host, _ noPayload) (any, error) { return h.mcpProjectStatus(), nil }),
	// :Magenta hooks (hooks.go).
	"hooks":   request(func(h *Host, _ noPayload) (any, error) { return h.hooksList() }),
	"sandbox": request(func(h *Host, _ noPayload) (any, error) { return h.sandboxStatus(), nil }),
	// Completion of :Magenta new-thread docker [--context NAME] and ssh.
	"containers":      request(func(h *Host, p containersReq) (any, error) { return h.containers(p), nil }),
	"docker_contexts": request(func(h *Host, _ noPayload) (any, error) { return h.dockerContexts(), nil }),
	"ssh_hosts":       request(func(h *Host, _ noPayload) (any, error) { return h.sshHosts(), nil }),
	"docker_version":  request(func(h *Host, _ noPayload) (any, error) { return h.dockerVersion(), nil }),
	// The input's completion of /commands (lua/magenta/slash.lua).
	"slash_commands": request(func(h *Host, _ noPayload) (any, error) { return h.slashCommands(), nil }),
	"thread_ids": request(func(h *Host, _ noPayload) (any, error) {
		if app := h.App(); app != nil {
			return app.ThreadIDs(), nil
		}
		return []string{}, nil
	}),
	// How many approvals wait, in any thread: the display's approve
	// key goes to the input instead only when none does (sidebar.lua).
	"approvals": request(func(h *Host, _ noPayload) (any, error) {
		return map[string]any{"pending": len(h.broker.Pending(""))}, nil
	}),

	// @image mentions and :Magenta paste-image (images.go, paste.go).
	"image":       request(func(h *Host, p imageReq) (any, error) { return h.imageRequest(p), nil }),
	"paste_image": request(func(h *Host, p pasteImageReq) (any, error) { return h.pasteImage(p), nil }),
}

// names returns a table's names, sorted.
func names[V any](table map[string]V) []string {
	out := make([]string, 0, len(table))
	for name := range table {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// unknownName is the error for a name neither table has.
func unknownName(kind, name string) error {
	return fmt.Errorf("unknown %s %q", kind, name)
}
