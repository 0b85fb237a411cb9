package headless

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/bashperm"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/guard"
	"github.com/magenta-nvim/magenta/pkg/chat"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/hooks"
	"github.com/magenta-nvim/magenta/pkg/localenv"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/threadstore"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// Exit codes of a run (doc/magenta.txt, magenta-headless-exit).
const (
	ExitOK          = 0   // the model ended its turn
	ExitModelError  = 1   // the model's provider failed (after retries)
	ExitUsage       = 2   // bad flags, config file, thread id or missing API key
	ExitBudget      = 3   // --max-cost or --max-turns stopped the run
	ExitFailure     = 4   // the run could not start (environment, store) or broke
	ExitInterrupted = 130 // SIGINT or SIGTERM aborted the run (128 + SIGINT)
)

// Statuses of the result event.
const (
	StatusSuccess     = "success"
	StatusModelError  = "modelError"
	StatusBudget      = "budgetExceeded"
	StatusMaxTurns    = "maxTurns"
	StatusInterrupted = "interrupted"
	StatusFailure     = "failure"
	StatusUsage       = "usageError"
)

// abortWait bounds how long an interrupted or stopped run waits for its
// turn to settle before closing everything anyway (abort settles at
// once; closing cancels whatever is left and waits for it).
const abortWait = 5 * time.Second

// maxPromptBytes caps a prompt read from stdin.
const maxPromptBytes = 16 << 20

// headlessPrompt is added to the system prompt: the model works for a
// script, and no one can answer a question.
const headlessPrompt = "This is a headless run (magenta-host run): no editor is open and no one watches or answers. Requests that need the user's approval are answered by the run's --approve setting. Finish the task on your own, then end your turn with a short final message: it is what the caller reads."

// Model-facing reasons for a declined request, per --approve.
const (
	DeclinedSandbox = "no one can approve it in a headless run (--approve=sandbox): only what runs without asking — commands the checker allows, or those the sandbox confines — may run; find another way, or say in your final message what the user must do"
	DeclinedNever   = "no one can approve it in a headless run (--approve=never): only what runs without asking — commands the checker proves read-only, edits inside the workspace — may run; find another way, or say in your final message what the user must do"
)

// Deps is what a run takes from its command.
type Deps struct {
	// NewProvider builds providers: the command's goes through the
	// provider process (pkg/provider/remote), as the Neovim host's does.
	NewProvider chat.ProviderFactory
	// Getenv reads the environment (nil: os.Getenv).
	Getenv func(string) string
	Stdin  io.Reader
	// StdinIsTerminal: with no prompt argument, a terminal on stdin is a
	// usage error rather than a wait for typing.
	StdinIsTerminal bool
	Stdout, Stderr  io.Writer
	// Interrupt delivers SIGINT/SIGTERM: the first aborts the turn as
	// :Magenta abort does; the run then ends.
	Interrupt <-chan os.Signal
	// OpenLog sends the log to path (--log); nil: warnings to stderr.
	OpenLog func(path string) (io.Closer, error)
	// Warm starts the provider process in the background (nil: nothing
	// to start): it starts while the environment is built, not after.
	Warm func()
	// Version is the host's (MCP servers are told it).
	Version string
}

// Run runs the "run" subcommand with args (after "run") and returns the
// exit code.
func Run(args []string, d Deps) int {
	getenv := d.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	p, err := parseParams(args, d.Stderr, DefaultConfigPath(getenv))
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		return ExitUsage
	}
	fail := func(code int, format string, args ...any) int {
		msg := fmt.Sprintf(format, args...)
		if p.json { // the caller reads events: the last one says why
			line, _ := json.Marshal(Event{V: SchemaVersion, Type: EventResult, Status: StatusUsage, ExitCode: &code, Error: msg})
			fmt.Fprintf(d.Stdout, "%s\n", line)
		}
		fmt.Fprintf(d.Stderr, "magenta-host run: %s\n", msg)
		return code
	}
	if p.logPath != "" && d.OpenLog != nil {
		closer, err := d.OpenLog(p.logPath)
		if err != nil {
			return fail(ExitUsage, "--log: %v", err)
		}
		defer closer.Close()
	} else {
		slog.SetDefault(slog.New(slog.NewTextHandler(d.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	}
	if p.fromStdin {
		if p.prompt, err = readPrompt(d); err != nil {
			return fail(ExitUsage, "%v", err)
		}
	}
	opts, err := LoadConfig(p.configPath, p.configSet)
	if err != nil {
		return fail(ExitUsage, "%v", err)
	}
	if opts, err = applyProfileFlags(opts, p); err != nil {
		return fail(ExitUsage, "%v", err)
	}
	r := &runner{p: p, d: d, opts: opts, getenv: getenv}
	return r.run()
}

// readPrompt reads the prompt from stdin.
func readPrompt(d Deps) (string, error) {
	if d.StdinIsTerminal || d.Stdin == nil {
		return "", errors.New("no prompt: give it as an argument, or pipe it on stdin (PROMPT \"-\")")
	}
	data, err := io.ReadAll(io.LimitReader(d.Stdin, maxPromptBytes+1))
	if err != nil {
		return "", fmt.Errorf("reading the prompt from stdin: %w", err)
	}
	if len(data) > maxPromptBytes {
		return "", fmt.Errorf("the prompt on stdin is over %d MiB", maxPromptBytes>>20)
	}
	prompt := strings.TrimSpace(string(data))
	if prompt == "" {
		return "", errors.New("no prompt: stdin was empty")
	}
	return prompt, nil
}

// applyProfileFlags puts the --profile profile first (a new thread takes
// the first), with --model and --base-url applied to it.
func applyProfileFlags(opts config.Options, p params) (config.Options, error) {
	i := 0
	if p.profile != "" {
		i = -1
		names := make([]string, len(opts.Profiles))
		for j, pr := range opts.Profiles {
			names[j] = pr.Name
			if pr.Name == p.profile {
				i = j
			}
		}
		if i < 0 {
			return opts, fmt.Errorf("--profile: no profile %q (profiles: %s)", p.profile, strings.Join(names, ", "))
		}
	}
	profiles := append([]config.Profile(nil), opts.Profiles...)
	chosen := profiles[i]
	if p.model != "" {
		chosen.Model = p.model
	}
	if p.baseURL != "" {
		chosen.BaseURL = p.baseURL
	}
	profiles = append(profiles[:i], profiles[i+1:]...)
	opts.Profiles = append([]config.Profile{chosen}, profiles...)
	return opts, opts.Validate()
}

// DataDir is Neovim's default stdpath("data"), where the Neovim host
// keeps saved threads: $XDG_DATA_HOME/nvim, else ~/.local/share/nvim
// ($NVIM_APPNAME in place of nvim when set).
func DataDir(getenv func(string) string) string {
	app := getenv("NVIM_APPNAME")
	if app == "" {
		app = "nvim"
	}
	base := getenv("XDG_DATA_HOME")
	if base == "" {
		home, _ := os.UserHomeDir()
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, app)
}

// runner is one run.
type runner struct {
	p      params
	d      Deps
	opts   config.Options
	getenv func(string) string
}

func (r *runner) run() int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if r.d.Warm != nil {
		r.d.Warm()
	}
	dataDir := DataDir(r.getenv)
	out := newOutput(r.d.Stdout, r.d.Stderr, r.p.json)
	defer out.close()
	st := newState(out, r.p)
	broker := approval.NewBroker(nil)
	broker.SetPolicy(st.decide)
	checker, err := localenv.BashChecker(r.opts)
	if err != nil { // LoadConfig checked it
		return st.early(ExitUsage, err.Error())
	}
	// Detection forks bwrap: it waits for the first tool call (or
	// localenv's bound), so a run that calls no tool does not pay it.
	probe := localenv.StartProbe(ctx, r.opts.Sandbox, st.firstTool, nil)
	local, err := localenv.New(r.opts, localenv.Options{
		DataDir: dataDir, Broker: broker, Remembered: guard.NewRemembered(), Probe: probe,
		Checker:     func() *bashperm.Checker { return checker },
		AskConfined: r.p.approve == ApproveNever,
		Warn:        st.warn,
	})
	if err != nil {
		return st.early(ExitFailure, err.Error())
	}
	if local.Parent != nil {
		// After the app has closed (wait): the commands it confines end
		// with it.
		defer local.Parent.Close()
	}
	env := local.Env
	if e := r.opts.Environment; e.Type != "" && e.Type != "local" {
		st.warn(fmt.Sprintf("the %q environment option is for Neovim: a headless run works in the local workspace", e.Type))
	}
	var store *threadstore.Store
	if r.opts.Threads.Persisted() {
		if store, err = threadstore.Open(dataDir, env.Cwd, st.warn); err != nil {
			st.warn("the thread is not saved: " + err.Error())
			store = nil
		}
	}
	// The profile the thread will use: a continued thread's own.
	profile := r.opts.Profiles[0]
	threadID := ""
	if r.p.thread != "" {
		if store == nil {
			return st.early(ExitUsage, "--thread: saved threads are off (threads.persist = false)")
		}
		saved, code, err := resolveThread(store, r.p.thread)
		if err != nil {
			return st.early(code, "--thread: "+err.Error())
		}
		threadID = saved.Header.ID
		if pr, ok := r.opts.Profile(saved.Header.Profile); ok && r.p.profile == "" {
			profile = pr
		}
	}
	if _, err := provider.SpecFor(profile, r.getenv); err != nil {
		var missing *provider.MissingKeyError
		if errors.As(err, &missing) {
			return st.early(ExitUsage, fmt.Sprintf("profile %q needs an API key: set the environment variable %s (or apiKeyEnvVar in the profile)", missing.Profile, missing.EnvVar))
		}
		return st.early(ExitUsage, err.Error())
	}
	reg := localenv.Tools(r.opts)
	go reg.Warm() // the tools' schemas, while the thread starts
	var toolServers chat.ToolServers
	if m := StartMCP(r.opts, broker, r.d.Version, st.warn); m != nil {
		defer m.Close() // after the app (wait closes it): no call is left
		reg, toolServers = reg.WithProvider(m), m
	}
	engine, err := r.hooks(broker, st)
	if err != nil {
		return st.early(ExitUsage, err.Error())
	}
	defer engine.Close()
	app, err := chat.NewApp(ctx, r.opts, chat.AppDeps{
		Screen: screen{st}, Tools: reg, Env: env,
		NewProvider:  r.d.NewProvider,
		SystemPrompt: chat.SystemPrompt(env, headlessPrompt+"\n"+r.opts.SystemPrompt),
		Broker:       broker,
		ContextFiles: local.Files.Refusing(),
		Store:        store,
		Observers:    []chat.Observer{st, engine.Observer()},
		Interceptors: []tools.Interceptor{st, engine},
		PromptCheck:  engine,
		Prompts:      local.Prompts,
		ToolServers:  toolServers,
	})
	if err != nil {
		return st.early(ExitUsage, err.Error())
	}
	st.mu.Lock()
	st.app = app
	st.mu.Unlock()
	first := app.ActiveThreadID()
	if threadID != "" {
		app.SelectThread(threadID)
		if r.p.profile != "" {
			app.SetProfile(profile.Name)
		}
		if id := app.ActiveThreadID(); id != threadID {
			app.Close()
			return st.early(ExitFailure, fmt.Sprintf("--thread: cannot open thread %s: %s", threadID, st.lastError()))
		}
	} else {
		threadID = first
	}
	st.setMain(threadID)
	out.emit(Event{Type: EventStart, Thread: threadID, Profile: profile.Name, Model: profile.Model, Cwd: env.Cwd, Approve: r.p.approve, Resumed: threadID != first})
	app.Send(r.p.prompt)
	return r.wait(app, st)
}

// wait waits for the main thread's turn to end, an interrupt, or a
// limit; then closes the app (nothing is left running) and writes the
// result.
func (r *runner) wait(app *chat.App, st *state) int {
	interrupted := false
	select {
	case <-st.ended:
	case <-r.d.Interrupt:
		interrupted = true
		st.stop(StatusInterrupted, "interrupted")
	}
	if !st.hasEnded() {
		select {
		case <-st.ended:
		case <-time.After(abortWait):
		case <-r.d.Interrupt: // a second one: stop waiting
		}
	}
	app.Close()
	res := st.result(interrupted)
	st.out.emit(res)
	return *res.ExitCode
}

// resolveThread finds a saved thread by id or unique prefix, and checks
// that no editor writes it.
func resolveThread(store *threadstore.Store, id string) (*threadstore.Thread, int, error) {
	if id == "" || strings.ContainsAny(id, "/\\.") {
		return nil, ExitUsage, fmt.Errorf("%q is not a thread id", id)
	}
	var match []string
	for _, s := range store.List() {
		if s.ID == id {
			match = []string{id}
			break
		}
		if strings.HasPrefix(s.ID, id) {
			match = append(match, s.ID)
		}
	}
	switch len(match) {
	case 0:
		return nil, ExitUsage, fmt.Errorf("no saved thread %q in this workspace (%s)", id, store.Path())
	case 1:
	default:
		return nil, ExitUsage, fmt.Errorf("%d saved threads start with %q: %s", len(match), id, strings.Join(match, ", "))
	}
	w, saved, err := store.OpenWriter(match[0])
	if errors.Is(err, threadstore.ErrLocked) {
		return nil, ExitFailure, fmt.Errorf("thread %s is open in Neovim (or another run), which writes it", match[0])
	}
	if err != nil {
		return nil, ExitFailure, err
	}
	_ = w.Close() // the app opens it again, for itself
	return saved, 0, nil
}

// hooks runs the config file's hooks as the Neovim host runs setup()'s:
// as the user, unconfined. A workspace's hooks (.claude/settings.json)
// are not read: they run only once trusted, and a run has no one to ask.
func (r *runner) hooks(broker *approval.Broker, st *state) (*hooks.Engine, error) {
	setup, ignored, err := hooks.ParseOption(r.opts.Hooks)
	if err != nil {
		return nil, err
	}
	for _, n := range ignored {
		st.warn(n)
	}
	return hooks.New(hooks.Options{
		Setup: setup, SetupIgnored: ignored, Broker: broker,
		Place: func(env *capabilities.Environment, workspace bool) (hooks.Place, error) {
			if workspace {
				return hooks.Place{}, errors.New("a headless run does not run the workspace's hooks")
			}
			return hooks.BashPlace(env.Cwd, nil, "as you, unconfined (the config file)"), nil
		},
	}), nil
}
