package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/bashperm"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/guard"
	"github.com/magenta-nvim/magenta/pkg/chat"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/headless"
	"github.com/magenta-nvim/magenta/pkg/hooks"
	"github.com/magenta-nvim/magenta/pkg/localenv"
	"github.com/magenta-nvim/magenta/pkg/mcp"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/sandbox/zygote"
	"github.com/magenta-nvim/magenta/pkg/threadstore"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// abortWait bounds how long a cancelled prompt waits for its turn to
// settle (abort settles at once).
const abortWait = 5 * time.Second

// acpPrompt is added to the system prompt: an editor drives the thread.
const acpPrompt = "You are driven through the Agent Client Protocol by the user's editor, not from Neovim's sidebar."

// Deps is what the agent takes from its command.
type Deps struct {
	// NewProvider builds providers (the provider process).
	NewProvider chat.ProviderFactory
	// Getenv reads the environment (nil: os.Getenv).
	Getenv func(string) string
	// Options are the decoded options (headless.LoadConfig).
	Options config.Options
	// Warm starts the provider process in the background (may be nil).
	Warm func()
	// Version is the host's, told to the client.
	Version string
}

// Agent is the ACP agent: one App, one session per thread. Its methods
// are called by the SDK on its connection's goroutines; safe for
// concurrent use.
type Agent struct {
	d      Deps
	conn   *sdk.AgentSideConnection
	ctx    context.Context
	cancel context.CancelFunc
	out    *updates
	// progress shows running calls' output and sub-agents.
	progress *progress
	// registry is the sessions' tools (describes sub-agents' calls).
	registry atomic.Pointer[tools.Registry]
	// prompts are the session/prompt handlers running: the agent waits
	// for them before it returns.
	prompts sync.WaitGroup

	// appMu makes "show this session's thread, then send to it" one step
	// (the App sends to the thread it shows).
	appMu sync.Mutex
	app   *chat.App
	cwd   string // the workspace of every session (the first one's)
	store *threadstore.Store
	hooks *hooks.Engine
	// parent is the sandbox's confinement parent (nil: none).
	parent *zygote.Parent
	// mcp runs the config file's MCP servers (nil: none).
	mcp *mcp.Manager

	mu       sync.Mutex
	sessions map[string]*session
	// caps are what the client said it offers (initialize).
	caps sdk.ClientCapabilities
	// closing: the agent is stopping; no prompt starts.
	closing bool
	// prompting is the session whose prompt runs last (a sub-agent's
	// question is asked in it).
	prompting string
}

// session is one thread the client knows.
type session struct {
	id   string
	mu   sync.Mutex
	busy bool
	// free is closed when the running prompt has answered.
	free  chan struct{}
	ended chan chat.TurnEnded // the current prompt's end; capacity 1
}

var (
	_ sdk.Agent = (*Agent)(nil)
)

// Serve runs the agent on in and out until the client goes away or ctx
// ends; everything it started has stopped when it returns.
func Serve(ctx context.Context, in io.Reader, out io.Writer, d Deps) error {
	if d.Getenv == nil {
		d.Getenv = os.Getenv
	}
	ctx, cancel := context.WithCancel(ctx)
	a := &Agent{d: d, ctx: ctx, cancel: cancel, sessions: map[string]*session{}}
	// The connection reads as soon as it is made: nothing is read, so no
	// request handled, until the agent is whole.
	ready := make(chan struct{})
	a.conn = sdk.NewAgentSideConnection(a, out, gatedReader{in, ready})
	a.out = newUpdates(ctx, a.conn)
	a.progress = newProgress(a.out, a.isSession, a.describe)
	close(ready)
	if d.Warm != nil {
		d.Warm()
	}
	select {
	case <-a.conn.Done():
	case <-ctx.Done():
	}
	a.close()
	return nil
}

// gatedReader reads r once ready is closed.
type gatedReader struct {
	r     io.Reader
	ready <-chan struct{}
}

func (g gatedReader) Read(p []byte) (int, error) {
	<-g.ready
	return g.r.Read(p)
}

// close stops every thread (aborting turns a vanished client left, and
// the commands they run), waits for the prompt handlers to answer, and
// stops the writer.
func (a *Agent) close() {
	a.cancel() // the App's context: every turn and tool call ends
	a.appMu.Lock()
	app, engine, parent, servers := a.app, a.hooks, a.parent, a.mcp
	a.appMu.Unlock()
	if app != nil {
		app.Close()
	}
	if servers != nil {
		servers.Close()
	}
	if engine != nil {
		engine.Close()
	}
	if parent != nil {
		parent.Close()
	}
	a.mu.Lock()
	a.closing = true // no prompt joins prompts from now on
	a.mu.Unlock()
	a.prompts.Wait()
	a.progress.close()
	a.out.close()
}

// Authenticate implements sdk.Agent: keys come from the environment.
func (a *Agent) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil
}

// Initialize implements sdk.Agent. The client's fs methods, when it
// offers them, serve the sessions' files (clientfs.go); its terminals
// are not used (see the package doc).
func (a *Agent) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	a.mu.Lock()
	a.caps = p.ClientCapabilities
	a.mu.Unlock()
	return sdk.InitializeResponse{
		ProtocolVersion:   sdk.ProtocolVersionNumber,
		AgentCapabilities: sdk.AgentCapabilities{LoadSession: true},
		AgentInfo:         &sdk.Implementation{Name: "magenta", Version: a.d.Version},
		AuthMethods:       []sdk.AuthMethod{},
	}, nil
}

// NewSession implements sdk.Agent: a new thread (the App's first, empty
// one for the first session).
func (a *Agent) NewSession(_ context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	a.appMu.Lock()
	defer a.appMu.Unlock()
	first := a.app == nil
	if first {
		if err := a.start(p.Cwd); err != nil {
			return sdk.NewSessionResponse{}, err
		}
	} else if filepath.Clean(p.Cwd) != a.cwd {
		return sdk.NewSessionResponse{}, fmt.Errorf("this agent works in %s; start another for %s", a.cwd, p.Cwd)
	}
	if !first {
		a.app.NewThread()
	}
	id := a.app.ActiveThreadID()
	a.mu.Lock()
	a.sessions[id] = &session{id: id, ended: make(chan chat.TurnEnded, 1)}
	a.mu.Unlock()
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(id)}, nil
}

// start builds the environment and the App for the workspace cwd (under
// appMu).
func (a *Agent) start(cwd string) error {
	if !filepath.IsAbs(cwd) {
		return fmt.Errorf("cwd %q is not an absolute path", cwd)
	}
	opts := a.d.Options
	if len(opts.Profiles) == 0 {
		return errors.New("no profile is configured")
	}
	if _, err := provider.SpecFor(opts.Profiles[0], a.d.Getenv); err != nil {
		return err // a missing API key, named with its variable
	}
	checker, err := localenv.BashChecker(opts)
	if err != nil {
		return err
	}
	broker := approval.NewBroker(nil)
	broker.SetPolicy(a.askClient)
	probe := localenv.StartProbe(a.ctx, opts.Sandbox, nil, nil)
	dataDir := headless.DataDir(a.d.Getenv)
	a.mu.Lock()
	fsCaps := a.caps.Fs
	a.mu.Unlock()
	var files func(capabilities.FileIO) capabilities.FileIO
	if fsCaps.ReadTextFile || fsCaps.WriteTextFile {
		// Under the guard, which judges every path before the client
		// sees it.
		files = func(disk capabilities.FileIO) capabilities.FileIO {
			return newClientFS(disk, a.conn, fsCaps, a.callSession)
		}
	}
	local, err := localenv.New(opts, localenv.Options{
		Cwd: cwd, DataDir: dataDir, Broker: broker, Remembered: guard.NewRemembered(), Probe: probe,
		Checker: func() *bashperm.Checker { return checker },
		Files:   files,
	})
	if err != nil {
		return err
	}
	a.parent = local.Parent
	env := local.Env
	engine, err := setupHooks(opts, broker)
	if err != nil {
		return err
	}
	a.hooks = engine
	var store *threadstore.Store
	if opts.Threads.Persisted() {
		if store, err = threadstore.Open(dataDir, env.Cwd, func(msg string) { slog.Warn("thread store", "msg", msg) }); err != nil {
			slog.Warn("threads are not saved", "err", err)
			store = nil
		}
	}
	reg := localenv.Tools(opts)
	var toolServers chat.ToolServers
	if m := headless.StartMCP(opts, broker, a.d.Version, func(msg string) { slog.Warn("acp: " + msg) }); m != nil {
		a.mcp = m
		reg, toolServers = reg.WithProvider(m), m
	}
	a.registry.Store(reg)
	app, err := chat.NewApp(a.ctx, opts, chat.AppDeps{
		Screen: screen{}, Tools: reg, Env: env, ToolServers: toolServers,
		NewProvider:  a.d.NewProvider,
		SystemPrompt: chat.SystemPrompt(env, acpPrompt+"\n"+opts.SystemPrompt),
		Broker:       broker,
		ContextFiles: local.Files.Refusing(),
		Store:        store,
		Observers:    []chat.Observer{chat.ObserverFunc(a.observe), engine.Observer()},
		Interceptors: []tools.Interceptor{a.progress, engine},
		PromptCheck:  engine,
		Prompts:      local.Prompts,
	})
	if err != nil {
		return err
	}
	a.app, a.cwd, a.store = app, filepath.Clean(cwd), store
	return nil
}

// isSession reports whether thread is one of the client's sessions.
func (a *Agent) isSession(thread string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.sessions[thread]
	return ok
}

// sessionOf is the session a thread's requests to the client go to: the
// thread's own, the one a sub-agent reports to, or else the session
// whose prompt runs last ("" : none yet).
func (a *Agent) sessionOf(thread string) string {
	a.mu.Lock()
	_, own := a.sessions[thread]
	prompting := a.prompting
	a.mu.Unlock()
	if own {
		return thread
	}
	if s, ok := a.progress.sessionOf(thread); ok {
		return s
	}
	return prompting
}

// callSession is the session of the tool call in ctx (clientFS).
func (a *Agent) callSession(ctx context.Context) (sdk.SessionId, bool) {
	s := a.sessionOf(capabilities.CallFrom(ctx).ThreadID)
	return sdk.SessionId(s), s != ""
}

// describe summarises a sub-agent's tool call for the client ("$ ls"):
// the tool's own summary, or its input cut short.
func (a *Agent) describe(name string, input json.RawMessage) string {
	if reg := a.registry.Load(); reg != nil {
		if t, ok := reg.Tool(name); ok {
			if d, ok := t.(tools.Describer); ok {
				if summary, _ := d.Describe(input); summary != "" {
					return summary
				}
			}
		}
	}
	return cut(strings.Join(strings.Fields(string(input)), " "), 80)
}

func (a *Agent) session(id sdk.SessionId) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[string(id)]
	if !ok {
		return nil, fmt.Errorf("no session %q", id)
	}
	return s, nil
}

// Prompt implements sdk.Agent: the prompt goes to the session's thread;
// its updates stream until the turn ends, and are all written before the
// answer. A second prompt while one runs is refused.
func (a *Agent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	text := promptText(p.Prompt)
	if strings.TrimSpace(text) == "" {
		return sdk.PromptResponse{}, errors.New("the prompt has no text")
	}
	a.mu.Lock()
	if a.closing {
		a.mu.Unlock()
		return sdk.PromptResponse{}, errors.New("the agent is stopping")
	}
	a.prompts.Add(1) // close waits for this prompt's answer
	a.mu.Unlock()
	defer a.prompts.Done()
	// A prompt for a session whose prompt runs supersedes it: the SDK
	// has cancelled the running one's context before calling this (as
	// the ACP session/prompt contract has it), so it is aborting; this
	// one waits for it to answer, then runs. A later prompt cancels this
	// one's wait the same way.
	s.mu.Lock()
	for s.busy {
		free := s.free
		s.mu.Unlock()
		select {
		case <-free:
		case <-ctx.Done():
			return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
		case <-a.ctx.Done():
			return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
		case <-time.After(abortWait + time.Second):
			return sdk.PromptResponse{}, errors.New("the session's previous prompt did not stop; cancel it, then send this again")
		}
		s.mu.Lock()
	}
	s.busy, s.free = true, make(chan struct{})
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.busy = false
		close(s.free)
		s.mu.Unlock()
	}()
	select { // a stale end from an earlier turn
	case <-s.ended:
	default:
	}
	a.mu.Lock()
	a.prompting = s.id
	a.mu.Unlock()
	a.appMu.Lock()
	a.app.SelectThread(s.id)
	a.app.Send(text)
	a.appMu.Unlock()
	var end chat.TurnEnded
	select {
	case end = <-s.ended:
	case <-a.ctx.Done(): // the agent stops
		end.Aborted = true
	case <-ctx.Done(): // session/cancel, or the client went away
		a.abort(s.id)
		select {
		case end = <-s.ended:
		case <-a.ctx.Done():
		case <-time.After(abortWait):
		}
		end.Aborted = true
	}
	a.out.flush(a.ctx)
	switch {
	case end.Aborted:
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	case end.Failure != "":
		return sdk.PromptResponse{}, errors.New(end.Failure)
	}
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
}

// abort aborts the session's turn as :Magenta abort does.
func (a *Agent) abort(id string) {
	a.appMu.Lock()
	defer a.appMu.Unlock()
	a.app.SelectThread(id)
	a.app.Abort()
}

// Cancel implements sdk.Agent; the SDK also cancels the prompt's
// context, which Prompt answers.
func (a *Agent) Cancel(_ context.Context, p sdk.CancelNotification) error {
	if _, err := a.session(p.SessionId); err != nil {
		return err
	}
	a.abort(string(p.SessionId))
	return nil
}

// SetSessionMode implements sdk.Agent: magenta offers no modes.
func (a *Agent) SetSessionMode(context.Context, sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	return sdk.SetSessionModeResponse{}, errors.New("magenta offers no session modes")
}

// SetSessionConfigOption implements sdk.Agent: magenta offers none.
func (a *Agent) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, errors.New("magenta offers no session config options")
}

// promptText joins the prompt's text blocks; a resource link is named
// (the model reads it with get_file).
func promptText(blocks []sdk.ContentBlock) string {
	var parts []string
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.ResourceLink != nil:
			parts = append(parts, "@"+b.ResourceLink.Uri)
		}
	}
	return strings.Join(parts, "\n")
}

// rawJSON decodes a tool input for the client (nil when it is not JSON).
func rawJSON(raw json.RawMessage) any {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return v
}

// setupHooks runs the config file's hooks as the Neovim host runs
// setup()'s: as the user, unconfined; a PreToolUse "ask" goes to the
// client. A workspace's hooks are not read (they run only once trusted
// in Neovim's sidebar).
func setupHooks(opts config.Options, broker *approval.Broker) (*hooks.Engine, error) {
	setup, ignored, err := hooks.ParseOption(opts.Hooks)
	if err != nil {
		return nil, err
	}
	return hooks.New(hooks.Options{
		Setup: setup, SetupIgnored: ignored, Broker: broker,
		Place: func(env *capabilities.Environment, workspace bool) (hooks.Place, error) {
			if workspace {
				return hooks.Place{}, errors.New("the ACP agent does not run the workspace's hooks")
			}
			return hooks.BashPlace(env.Cwd, nil, "as you, unconfined (the config file)"), nil
		},
	}), nil
}
