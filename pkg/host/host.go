package host

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/neovim/go-client/nvim"
	"github.com/neovim/go-client/nvim/plugin"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/bashperm"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/docker"
	"github.com/magenta-nvim/magenta/pkg/capabilities/guard"
	"github.com/magenta-nvim/magenta/pkg/capabilities/ripgrep"
	"github.com/magenta-nvim/magenta/pkg/chat"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/hooks"
	"github.com/magenta-nvim/magenta/pkg/inline"
	"github.com/magenta-nvim/magenta/pkg/lsp"
	"github.com/magenta-nvim/magenta/pkg/mcp"
	"github.com/magenta-nvim/magenta/pkg/mcp/project"
	"github.com/magenta-nvim/magenta/pkg/prompts"
	"github.com/magenta-nvim/magenta/pkg/rewind"
	"github.com/magenta-nvim/magenta/pkg/sandbox/zygote"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// Names of the remote functions in the manifest.
const (
	EventFunction   = "MagentaEvent"
	RequestFunction = "MagentaRequest"
)

// Options configures a Host.
type Options struct {
	Version string
	LogPath string
	// NewProvider builds providers; tests inject a scripted fake.
	NewProvider chat.ProviderFactory
	// Tools defaults to tools.Default().
	Tools *tools.Registry
	// Editor replaces the RPC editor (tests of the host without Neovim).
	Editor Editor
	// Shell replaces the local shell under the permission guard (tests:
	// a scripted memshell, whose interactive commands have a scripted
	// Terminal).
	Shell capabilities.Shell
	// Warm starts the provider process ahead of the first request, in
	// the background (remote.Client.Warm); called when the sidebar first
	// opens (warm.go), it must not block. Nil: nothing to start.
	Warm func()
	// SSHConfig is the ssh_config file ssh threads pass to the client
	// (`ssh -F`) and whose hosts :Magenta new-thread ssh completes (the
	// tests: ssh reads the passwd entry's home, never $HOME). Empty: the
	// user's ~/.ssh/config, as ssh reads it.
	SSHConfig string
	// SSHAgentDir holds the remote agent ssh threads upload (sshenv
	// Config.AgentDir); empty means the directory of magenta-supervisor
	// beside the running executable (tests running in process set it).
	SSHAgentDir string
}

// Host serves one Neovim connection.
type Host struct {
	opts     Options
	nv       *nvim.Nvim
	ctx      context.Context
	cancel   context.CancelFunc
	renderer *Renderer

	// Approvals and ALWAYS answers live as long as the host (the Neovim
	// session) and are shared by every thread.
	broker     *approval.Broker
	remembered *guard.Remembered
	// checker is replaced when setup() sends new shell rules.
	checker atomic.Pointer[bashperm.Checker]
	// locator finds ripgrep (set at attach; read by the "rg" request).
	locator *ripgrep.Locator
	// contextFiles reads context files and @file/@buf mentions through
	// the local environment's file check, refusing what would ask (set
	// at attach with the environment).
	contextFiles capabilities.FileIO
	// images are @image mentions read for a message being sent, and the
	// files :Magenta paste-image wrote (images.go).
	images heldImages
	// checkRead is the local environment's read check alone (no file
	// read), for the paths @diag and @qf lines name (set at attach).
	checkRead func(ctx context.Context, path string) error
	// lsp asks Neovim's language servers; answers arrive as events.
	lsp *lsp.Adapter
	// inline runs inline edits, one per buffer (see inline.go).
	inline *inline.Manager
	// terms are interactive commands' terminal windows (terminal.go).
	terms *terminals
	// ssh are the connections of ssh environments, closed with the host
	// (ssh.go).
	ssh sshConns

	mu      sync.Mutex
	app     *chat.App
	initErr error

	// options are the options of the last attach or configure.
	options config.Options

	// sandbox is the bubblewrap detection of the local environment (set
	// at attach; read by :checkhealth's "sandbox" request).
	sandbox *sandboxProbe
	// parent is the sandbox's confinement parent (set at attach; nil
	// with the sandbox off), closed with the host.
	parent *zygote.Parent

	// mcp runs the MCP servers of the options (set at attach; nil when
	// none is configured).
	mcp *mcp.Manager
	// mcpProject is the gate of the workspace's .mcp.json (nil when no
	// manager runs).
	mcpProject *project.Gate
	// mcpLine is what the threads' headers show about MCP servers.
	mcpLine func() view.MCPLine

	// checkpoints records the local workspace for :Magenta rewind (set at
	// attach; nil when checkpoints are off).
	checkpoints *rewind.Checkpointer

	// hooks runs setup()'s and the trusted workspace's hooks (set at
	// attach, under mu; hooks.go).
	hooks *hooks.Engine

	// warmed: what the first request needs was started (warm.go).
	warmed atomic.Bool

	// prompts are the skills, commands and agents from files (set at
	// attach, under mu; prompts.go).
	prompts *prompts.Library

	closeOnce sync.Once

	// warned holds the warnings already shown, so each is said once.
	warned sync.Map
}

// warnOnce shows msg as a warning the first time it is given.
func (h *Host) warnOnce(msg string) {
	if _, seen := h.warned.LoadOrStore(msg, true); !seen {
		h.renderer.Notify("magenta: "+msg, chat.LevelWarn)
	}
}

// New returns a host for the connection nv.
func New(nv *nvim.Nvim, opts Options) *Host {
	var editor Editor = &nvimEditor{nv}
	if opts.Editor != nil {
		editor = opts.Editor
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &Host{
		opts: opts, nv: nv, ctx: ctx, cancel: cancel, renderer: NewRenderer(editor),
		broker: approval.NewBroker(nil), remembered: guard.NewRemembered(),
		lsp: lsp.New(nv),
	}
	h.inline = inline.NewManager(inlineSink{nv: nv, renderer: h.renderer})
	h.terms = newTerminals(ctx, nvimTermEditor{nv}, h.warnOnce)
	return h
}

// Register declares the host's remote functions on p. h may be nil when
// p only generates the manifest.
func Register(p *plugin.Plugin, h *Host) {
	// The handlers take ...any, not []any: go-client decodes the
	// arguments before calling a handler, and an argument that does not
	// fit the declared type (rpcrequest(chan, fn, 1)) makes it drop the
	// connection's serve loop without answering, which leaves Neovim
	// waiting forever. Every value decodes into any; the shape is then
	// checked here and answered with an error.
	p.HandleFunction(&plugin.FunctionOptions{Name: EventFunction}, func(raw ...any) {
		args, err := callArgs(raw)
		if err != nil {
			h.onBadEvent(err)
			return
		}
		h.onEvent(args)
	})
	p.HandleFunction(&plugin.FunctionOptions{Name: RequestFunction}, func(raw ...any) (any, error) {
		args, err := callArgs(raw)
		if err != nil {
			return nil, err
		}
		return h.onRequest(args)
	})
}

// callArgs unwraps the one list a remote function receives (Neovim
// calls it as rpcrequest(chan, name, [args...])).
func callArgs(raw []any) ([]any, error) {
	if len(raw) != 1 {
		return nil, fmt.Errorf("expected one list of arguments, got %d values", len(raw))
	}
	if raw[0] == nil {
		return nil, nil
	}
	args, ok := raw[0].([]any)
	if !ok {
		return nil, fmt.Errorf("expected a list of arguments, got %T", raw[0])
	}
	return args, nil
}

// Manifest returns the remote-plugin manifest for hostName.
func Manifest(hostName string) []byte {
	p := plugin.New(nil)
	Register(p, nil)
	return p.Manifest(hostName)
}

// Close stops the threads, the MCP servers and the renderer; calls after
// the first do nothing.
func (h *Host) Close() { h.closeOnce.Do(h.close) }

func (h *Host) close() {
	h.mu.Lock()
	app := h.app
	h.mu.Unlock()
	if app != nil {
		app.Close()
	}
	h.ssh.closeAll() // after the threads: nothing runs on them any more
	h.inline.Close()
	if h.checkpoints != nil {
		h.checkpoints.Close()
	}
	h.closeHooks()
	h.closeMCP()
	h.mu.Lock()
	parent := h.parent
	h.mu.Unlock()
	if parent != nil {
		parent.Close() // after the threads: nothing confined runs any more
	}
	h.cancel()
	h.terms.Wait()
	h.renderer.Close()
}

// App returns the app once attached (tests).
func (h *Host) App() *chat.App {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.app
}

// LSP returns the host's language-server adapter (benchmarks).
func (h *Host) LSP() *lsp.Adapter { return h.lsp }

// Renderer returns the host's renderer (tests, benchmarks).
func (h *Host) Renderer() *Renderer { return h.renderer }

// recoverTo turns a panic in a handler into a log entry and a message to
// the user; the connection and the editor go on.
func (h *Host) recoverTo(where string) {
	if p := recover(); p != nil {
		slog.Error("handler panicked", "where", where, "panic", p, "stack", string(debug.Stack()))
		h.renderer.Notify(fmt.Sprintf("magenta: internal error in %s (a bug; see %s): %v", where, h.opts.LogPath, p), chat.LevelError)
	}
}

// onBadEvent reports an event that could not be decoded: a notification
// has no answer, so the user is told.
func (h *Host) onBadEvent(err error) {
	slog.Warn("bad event", "err", err)
	h.renderer.Notify("magenta: "+err.Error(), chat.LevelError)
}

func (h *Host) onEvent(args []any) {
	defer h.recoverTo("event")
	ev, err := decodeEvent(args)
	if err != nil {
		h.onBadEvent(err)
		return
	}
	slog.Debug("event", "name", ev.name)
	spec, ok := events[ev.name]
	if !ok {
		h.onBadEvent(unknownName("event", ev.name))
		return
	}
	var app *chat.App
	if !spec.noApp {
		h.mu.Lock()
		var initErr error
		app, initErr = h.app, h.initErr
		h.mu.Unlock()
		if app == nil {
			if initErr == nil {
				initErr = errorf("the host was not attached yet; run :Magenta toggle")
			}
			h.renderer.Notify(initErr.Error(), chat.LevelError)
			return
		}
	}
	h.run(app, ev, spec)
}

// dispatchSafely dispatches to the current app with the handler's panic
// protection (tests).
func (h *Host) dispatchSafely(ev event) {
	defer h.recoverTo("event")
	if spec, ok := events[ev.name]; ok {
		h.run(h.App(), ev, spec)
	}
}

// run decodes ev's payload into its struct and handles it; a payload
// that does not fit is reported, never handled.
func (h *Host) run(app *chat.App, ev event, spec eventSpec) {
	if err := spec.run(h, app, ev.payload); err != nil {
		h.onBadEvent(fmt.Errorf("event %q: %w", ev.name, err))
	}
}

// newThread starts a thread in the environment new_thread names, or the
// `environment` option's when it names none.
func (h *Host) newThread(app *chat.App, p newThreadEvent) {
	h.mu.Lock()
	opts := h.options
	h.mu.Unlock()
	e := config.Environment{Type: p.Type, Container: p.Container, Context: p.Context, Host: p.Host, Cwd: p.Cwd}
	if e.Type == "" { // no environment named: the option's default
		e = opts.Environment
	}
	switch e.Type {
	case "", config.EnvLocal:
		app.NewThread()
	case config.EnvDocker:
		h.newDockerThread(app, opts, docker.Config{Container: e.Container, Context: e.Context, Cwd: e.Cwd})
	case config.EnvSSH:
		h.newSSHThread(app, opts, e.Host, e.Cwd)
	default:
		h.renderer.Notify(fmt.Sprintf("magenta: unknown environment type %q (local, docker or ssh)", p.Type), chat.LevelError)
	}
}

// attach configures the host from the options Lua sends when it starts
// a host (and again after a restart).
func (h *Host) attach(p attachEvent) {
	h.setDisplay(p.Display)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.app != nil {
		h.app.Refresh()
		return
	}
	// The new thread's top at once (chat.PendingFrame): what follows, up
	// to the thread's own first frame, is most of the host's part of a
	// first toggle. A host started again to reopen a thread waits for it.
	pending := p.Resume == "" && h.showPending(p.Options)
	fail := func(err error) {
		h.initErr = err
		if pending { // no thread comes: the display does not pretend one does
			h.renderer.Publish(chat.PendingKey, &view.Frame{})
		}
		h.renderer.Notify(err.Error(), chat.LevelError)
	}
	opts, err := config.Decode([]byte(p.Options))
	if err != nil {
		fail(err)
		return
	}
	setLogLevel(opts.LogLevel)
	env, reg, err := h.environment(opts, p.Cwd, p.DataDir)
	if err != nil {
		fail(err)
		return
	}
	h.checkpoints = h.startCheckpoints(opts, env, p.DataDir)
	if err := h.startHooks(opts, env, p.DataDir); err != nil {
		fail(err)
		return
	}
	shown := make(chan string, 1)
	app, err := chat.NewApp(h.ctx, opts, chat.AppDeps{
		Screen: shownScreen{h.renderer, shown}, Tools: reg, Env: env,
		NewProvider:  h.opts.NewProvider,
		SystemPrompt: chat.SystemPrompt(env, opts.SystemPrompt),
		Broker:       h.broker,
		ContextFiles: h.contextFiles,
		Terminals:    h.terms,
		MCP:          h.mcpLine,
		ToolServers:  h.toolServers(),
		Store:        h.threadStore(opts, p.DataDir, env.Cwd),
		OpenEnv:      h.openSavedEnv(opts),
		Interceptors: h.interceptors(opts, env),
		Observers:    h.observers(),
		PromptCheck:  h.hooks,
		OnDeleted:    h.threadDeleted,
		Prompts:      h.prompts,
	})
	if err != nil {
		fail(err)
		return
	}
	h.app, h.initErr, h.options = app, nil, opts
	go h.tellShown(shown)
	// A host started again after one died reopens the thread that one
	// showed (when it was saved).
	if id := p.Resume; id != "" {
		app.Resume(id)
	}
	// A docker or ssh default environment: its first thread is made as
	// soon as the container or the host answers.
	switch e := opts.Environment; e.Type {
	case config.EnvDocker:
		h.newDockerThread(app, opts, docker.Config{Container: e.Container, Context: e.Context, Cwd: e.Cwd})
	case config.EnvSSH:
		h.newSSHThread(app, opts, e.Host, e.Cwd)
	}
	slog.Info("attached", "cwd", env.Cwd, "profiles", len(opts.Profiles))
}

// showPending shows chat.PendingFrame for the options' profiles, read
// alone (decoding and checking every option takes ~1.5 ms of a first
// toggle), and reports whether it did. Options that turn out bad blank
// it again (attach's fail).
func (h *Host) showPending(options string) bool {
	var head struct {
		Profiles []config.Profile `json:"profiles"`
	}
	if err := json.Unmarshal([]byte(options), &head); err != nil || len(head.Profiles) == 0 {
		return false
	}
	h.renderer.Publish(chat.PendingKey, chat.PendingFrame(config.Options{Profiles: head.Profiles}))
	h.renderer.Show(chat.PendingKey)
	// Let the renderer, just woken on this P, send it before attach goes
	// on: the other P may be asleep, and attach never blocks long enough
	// for the renderer to be taken over (seen: the stand-in drawn only
	// after attach, ~2 ms late).
	runtime.Gosched()
	return true
}

// setDisplay makes buf (0: none) the buffer the chat is drawn into, after
// checking that the sidebar made it: any other buffer is refused with an
// error and left untouched. It reports whether buf was accepted.
func (h *Host) setDisplay(buf int) bool {
	if buf != 0 {
		if err := h.renderer.editor.CheckDisplay(buf); err != nil {
			slog.Warn("display buffer refused", "buf", buf, "err", err)
			h.renderer.Notify(err.Error(), chat.LevelError)
			return false
		}
	}
	h.renderer.SetBuffer(buf)
	return true
}

// rgInfo says which ripgrep grep uses, for :checkhealth.
func (h *Host) rgInfo() map[string]any {
	h.mu.Lock()
	loc := h.locator
	h.mu.Unlock()
	if loc == nil {
		return map[string]any{"error": "the host is not attached yet"}
	}
	probe := *loc
	probe.AllowDownload = false // health must not download
	ctx, cancel := context.WithTimeout(h.ctx, 5*time.Second)
	defer cancel()
	path, source, err := probe.Find(ctx)
	if err != nil {
		if loc.AllowDownload {
			return map[string]any{"error": err.Error() + " (it will be downloaded on first use)"}
		}
		return map[string]any{"error": err.Error()}
	}
	return map[string]any{"path": path, "source": source}
}

// configure applies options sent again by setup() while the host runs.
func (h *Host) configure(p configureEvent) {
	opts, err := config.Decode([]byte(p.Options))
	if err != nil {
		h.renderer.Notify(err.Error(), chat.LevelError)
		return
	}
	setLogLevel(opts.LogLevel)
	checker, err := bashChecker(opts)
	if err != nil {
		h.renderer.Notify(err.Error(), chat.LevelError)
		return
	}
	if err := h.configureHooks(opts); err != nil {
		h.renderer.Notify(err.Error(), chat.LevelError)
		return
	}
	if app := h.App(); app != nil {
		h.checker.Store(checker)
		app.SetOptions(opts)
		h.mu.Lock()
		h.options = opts
		h.mu.Unlock()
	}
}

func (h *Host) onRequest(args []any) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			slog.Error("request panicked", "panic", p, "stack", string(debug.Stack()))
			result, err = nil, errorf("internal error: %v", p)
		}
	}()
	ev, err := decodeEvent(args)
	if err != nil {
		return nil, err
	}
	spec, ok := requests[ev.name]
	if !ok {
		return nil, errorf("unknown request %q", ev.name)
	}
	result, err = spec.run(h, ev.payload)
	if err != nil {
		return nil, fmt.Errorf("request %q: %w", ev.name, err)
	}
	return result, nil
}

// sandboxStatus answers the "sandbox" request for :checkhealth.
func (h *Host) sandboxStatus() map[string]any {
	h.mu.Lock()
	probe, parent := h.sandbox, h.parent
	h.mu.Unlock()
	if probe == nil {
		return map[string]any{"state": "not started"}
	}
	st, done := probe.Status()
	if !done {
		return map[string]any{"state": "detecting"}
	}
	info := map[string]any{"state": "done", "available": st.Available, "reason": st.Reason, "version": st.Version, "path": st.Path, "banner": probe.Banner()}
	if parent != nil {
		info["parent_ready"], info["parent_why"] = parent.Status()
	}
	return info
}

// containers lists the running containers of a Docker context ("" the
// CLI's current one: completion of :Magenta new-thread docker [--context
// NAME]); nothing when docker does not answer.
func (h *Host) containers(p containersReq) []string {
	ctx, cancel := context.WithTimeout(h.ctx, 5*time.Second)
	defer cancel()
	names, err := docker.ContainersIn(ctx, p.Context)
	if err != nil || names == nil {
		return []string{} // completion offers nothing
	}
	return names
}

// dockerContexts lists the docker CLI's contexts (completion after
// --context); nothing when docker does not answer.
func (h *Host) dockerContexts() []string {
	ctx, cancel := context.WithTimeout(h.ctx, 5*time.Second)
	defer cancel()
	names, err := docker.Contexts(ctx)
	if err != nil || names == nil {
		return []string{}
	}
	return names
}

// dockerVersion answers the "docker_version" request for :checkhealth.
func (h *Host) dockerVersion() map[string]any {
	ctx, cancel := context.WithTimeout(h.ctx, 5*time.Second)
	defer cancel()
	v, err := docker.Version(ctx)
	if err != nil {
		return map[string]any{"error": err.Error()}
	}
	return map[string]any{"version": v}
}
