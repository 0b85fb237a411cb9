package sshenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities/posixremote"
)

// Errors of the connection; test with errors.Is.
var (
	// ErrNotInstalled: no ssh client on the host's PATH.
	ErrNotInstalled = errors.New("the OpenSSH client (ssh) is not installed")
	// ErrHostKey: the host's key is unknown or differs from the one in
	// known_hosts. Nothing is asked: BatchMode refuses instead.
	ErrHostKey = errors.New("host key verification failed")
	// ErrAuth: the server refused every key (and nothing may prompt for a
	// password or passphrase).
	ErrAuth = errors.New("authentication failed")
	// ErrUnreachable: no connection could be made (name, route, refused,
	// timed out).
	ErrUnreachable = errors.New("host unreachable")
	// ErrConnectionLost: the connection broke while a command or a file
	// operation used it; the next call connects again.
	ErrConnectionLost = errors.New("connection lost")
)

// exitSSH is the status ssh exits with when it failed itself (rather
// than reporting the remote command's).
const exitSSH = 255

// Defaults of Config.
const (
	DefaultControlPersist = 10 * time.Minute
	DefaultAliveInterval  = 10 * time.Second
	DefaultConnectTimeout = 15 * time.Second
	// aliveCount is ServerAliveCountMax: the master gives up after this
	// many unanswered keepalives.
	aliveCount = 3
	// clientWaitDelay bounds the wait for an ssh client's pipes after it
	// was killed (a cancelled call).
	clientWaitDelay = 2 * time.Second
	// checkTimeout bounds `ssh -O check` (a local socket round trip).
	checkTimeout = 5 * time.Second
)

// Config says how to reach the machine.
type Config struct {
	// Host is the destination as the user gives it to ssh: an alias of
	// ~/.ssh/config or [user@]host.
	Host string
	// Cwd is the absolute remote working directory; empty means the
	// remote user's home.
	Cwd string
	// SSH is the client's path; empty means ssh on PATH.
	SSH string
	// Options are extra client arguments put before the host (the tests
	// pass `-F <config>`); the user's own configuration applies as in
	// their terminal otherwise.
	Options []string
	// ControlDir holds the master connection's socket; empty means a new
	// private (0700) temporary directory, removed by Close.
	ControlDir string
	// ControlPersist is how long an idle master stays up; default
	// DefaultControlPersist.
	ControlPersist time.Duration
	// AliveInterval is ServerAliveInterval: a silent connection is
	// declared lost after aliveCount of them; default DefaultAliveInterval.
	AliveInterval time.Duration
	// ConnectTimeout bounds connecting, the banner exchange included;
	// default DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// AgentDir holds the remote agent's binaries (magenta-supervisor,
	// and magenta-supervisor-linux-ARCH for other architectures): the
	// Conn uploads the one for the machine on first use and runs the
	// commands through it (package remoteagent). Empty means no agent:
	// each command on a channel of its own.
	AgentDir string
}

// Conn is one host reached through the user's OpenSSH client, with one
// multiplexed master connection that every command and file operation
// opens a channel on. It is safe for concurrent use.
type Conn struct {
	ssh     string
	host    string
	options []string
	dir     string // holds the control socket and the master's log
	ownDir  bool
	persist time.Duration
	alive   time.Duration
	connect time.Duration

	mu sync.Mutex
	// up: the master answered since the last failure seen; reset by a
	// failed call, so the next one checks (and reconnects).
	up bool
	// pid is the master's process (from `ssh -O check`), 0 when unknown:
	// whether it still lives is a signal 0 away, no ssh run.
	pid int
	// orphans are the markers of commands whose connection broke before
	// they ended: swept on the next connection.
	orphans []string

	// closed: Close was called; no agent is started again.
	closed bool

	// remote runs the scripts of package posixremote on the host.
	remote *posixremote.Remote

	agentDir string
	agent    agentSlot
}

// runner is Conn as the posixremote.Runner of its scripts (Conn's own
// Command runs a remote string).
type runner Conn

var _ posixremote.Runner = (*runner)(nil)

// Command implements posixremote.Runner: `ssh host 'exec sh -c …'` on the
// master, connected first when it is down. stdin needs no flag: ssh
// passes what the caller attaches, and nothing without.
func (r *runner) Command(ctx context.Context, _ bool, script string, args ...string) (*exec.Cmd, error) {
	c := (*Conn)(r)
	if err := c.ensure(ctx); err != nil {
		return nil, err
	}
	return c.Command(ctx, false, remoteScript(script, args...)), nil
}

// Failure implements posixremote.Runner: none of the scripts exits 255,
// ssh's own status when it failed; the master may be gone then.
func (r *runner) Failure(ctx context.Context, code int, stderr string, err error) error {
	if code != exitSSH {
		return nil
	}
	return (*Conn)(r).sshFailure(ctx, stderr, err)
}

// Dial checks the client, connects the master and returns the Conn.
// Failures say why: ErrNotInstalled, ErrHostKey, ErrAuth, ErrUnreachable.
func Dial(ctx context.Context, cfg Config) (*Conn, error) {
	if cfg.Host == "" || strings.HasPrefix(cfg.Host, "-") {
		return nil, fmt.Errorf("ssh environment: invalid host %q", cfg.Host)
	}
	bin := cfg.SSH
	if bin == "" {
		p, err := exec.LookPath("ssh")
		if err != nil {
			return nil, fmt.Errorf("%w (no ssh on PATH)", ErrNotInstalled)
		}
		bin = p
	}
	c := &Conn{ssh: bin, host: cfg.Host, options: cfg.Options, dir: cfg.ControlDir,
		persist: orDefault(cfg.ControlPersist, DefaultControlPersist),
		alive:   orDefault(cfg.AliveInterval, DefaultAliveInterval),
		connect: orDefault(cfg.ConnectTimeout, DefaultConnectTimeout), agentDir: cfg.AgentDir}
	c.remote = &posixremote.Remote{Runner: (*runner)(c), Name: "ssh " + c.host, Program: "ssh",
		Where: "on " + c.host, Reading: "reading over ssh"}
	if c.dir == "" {
		// Short: a Unix socket path is limited to ~104 bytes.
		dir, err := os.MkdirTemp("", "magenta-ssh-")
		if err != nil {
			return nil, fmt.Errorf("ssh environment: control directory: %w", err)
		}
		c.dir, c.ownDir = dir, true
	}
	if err := os.Chmod(c.dir, 0o700); err != nil {
		return nil, fmt.Errorf("ssh environment: control directory: %w", err)
	}
	if err := c.ensure(ctx); err != nil {
		c.removeDir()
		return nil, err
	}
	c.ensureAgent(ctx)
	return c, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Host is the destination as configured.
func (c *Conn) Host() string { return c.host }

// ControlPath is the master's socket, for a bare `ssh -o ControlPath=…`
// on the same connection. One Conn is one host, in a directory of its
// own: a fixed name (not %C) lets a call see the socket is gone with one
// stat instead of running `ssh -O check`.
func (c *Conn) ControlPath() string { return filepath.Join(c.dir, "master.sock") }

// BaseArgs are the client options every call uses: the user's config
// applies, nothing ever prompts (BatchMode), the master's socket is
// ours, a silent connection is declared lost.
func (c *Conn) BaseArgs() []string {
	args := []string{
		"-o", "BatchMode=yes",
		"-o", "ControlPath=" + c.ControlPath(),
		"-o", "ServerAliveInterval=" + seconds(c.alive),
		"-o", "ServerAliveCountMax=" + strconv.Itoa(aliveCount),
		"-o", "ConnectTimeout=" + seconds(c.connect),
	}
	return append(args, c.options...)
}

func seconds(d time.Duration) string {
	return strconv.FormatInt(int64((d+time.Second-1)/time.Second), 10)
}

// Command is ssh running remote (one string, which the remote user's
// login shell parses: build it with quote) on a channel of the master,
// without a terminal; tty "-tt" asks for one. Cancelling ctx kills the
// local client (context.Background(): the caller ends it).
func (c *Conn) Command(ctx context.Context, tty bool, remote string) *exec.Cmd {
	args := c.BaseArgs()
	// ControlMaster=no: a call never becomes a master itself (a master
	// started here would keep the call's stdout open while it persists).
	args = append(args, "-o", "ControlMaster=no")
	if tty {
		args = append(args, "-tt")
	} else {
		args = append(args, "-T")
	}
	args = append(args, "--", c.host, remote)
	cmd := exec.CommandContext(ctx, c.ssh, args...)
	cmd.Env = os.Environ() // SSH_AUTH_SOCK and the like: the user's agent
	cmd.WaitDelay = clientWaitDelay
	return cmd
}

// ensure makes sure a master answers, starting one when none does, and
// then sweeps what commands cut off by a lost connection left running.
func (c *Conn) ensure(ctx context.Context) error {
	orphans, err := c.connectMaster(ctx)
	if err != nil {
		return err
	}
	for _, m := range orphans {
		// Best effort: a failure leaves only what already ran.
		_, _, _, _ = c.remote.Run(ctx, nil, posixremote.EndScript, m)
	}
	return nil
}

// connectMaster is ensure's part under c.mu (one master at a time): it
// returns the markers to sweep, which runScript must not do with the
// lock held (a failure there takes it).
func (c *Conn) connectMaster(ctx context.Context) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.up && c.alivePID() && c.socketExists() {
		return nil, nil
	}
	pid, ok := c.check(ctx)
	if !ok {
		if err := c.startMaster(ctx); err != nil {
			return nil, err
		}
		if pid, ok = c.check(ctx); !ok {
			return nil, fmt.Errorf("ssh %s: the master connection did not stay up (see %s)", c.host, filepath.Join(c.dir, "master.log"))
		}
	}
	c.up, c.pid = true, pid
	orphans := c.orphans
	c.orphans = nil
	return orphans, nil
}

// check asks the master whether it runs (`ssh -O check`: a local
// socket round trip, no network) and returns its pid (0 when ssh did
// not say it).
func (c *Conn) check(ctx context.Context) (int, bool) {
	args := append(c.BaseArgs(), "-O", "check", "--", c.host)
	cmd := exec.CommandContext(ctx, c.ssh, args...)
	cmd.Env = os.Environ()
	out, err := cmd.CombinedOutput() // "Master running (pid=123)"
	if err != nil {
		return 0, false
	}
	pid := 0
	if _, rest, ok := strings.Cut(string(out), "(pid="); ok {
		if n, _, ok := strings.Cut(rest, ")"); ok {
			pid, _ = strconv.Atoi(n)
		}
	}
	return pid, true
}

// masterAlive reports whether the master's process still lives (true
// when its pid is unknown: only a failed call tells then).
func (c *Conn) masterAlive() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.alivePID()
}

// socketExists: the master removes its socket when it exits.
func (c *Conn) socketExists() bool {
	_, err := os.Stat(c.ControlPath())
	return err == nil
}

// alivePID is masterAlive with c.mu held.
func (c *Conn) alivePID() bool {
	if c.pid <= 0 {
		return true
	}
	return processAlive(c.pid)
}

// startMaster connects a master that forks into the background once
// authenticated (-f) and lives ControlPersist when idle. Its stderr is a
// file, not a pipe: the background master keeps it open, and a pipe
// would hold Wait until the master ends. The master forwards nothing:
// no agent, no X11, none of the config's port forwardings (commands the
// agent runs remotely must not reach the user's agent, and the user's
// own sessions keep their forwardings).
func (c *Conn) startMaster(ctx context.Context) error {
	logPath := filepath.Join(c.dir, "master.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("ssh %s: %w", c.host, err)
	}
	defer logFile.Close()
	args := append(c.BaseArgs(),
		"-o", "ControlMaster=yes",
		"-o", "ControlPersist="+seconds(c.persist),
		"-o", "ForwardAgent=no", "-o", "ForwardX11=no", "-o", "ClearAllForwardings=yes",
		"-N", "-f", "--", c.host)
	cmd := exec.CommandContext(ctx, c.ssh, args...)
	cmd.Env = os.Environ()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return fmt.Errorf("ssh %s: connecting: %w", c.host, ctx.Err())
	}
	if runErr == nil {
		return nil
	}
	msg, _ := os.ReadFile(logPath)
	return classify(c.host, strings.TrimSpace(string(msg)), runErr)
}

// classify turns ssh's own failure (exit 255, its message on stderr)
// into an error matching ErrHostKey, ErrAuth or ErrUnreachable when it
// is one of those.
func classify(host, stderr string, err error) error {
	msg := stderr
	if msg == "" && err != nil {
		msg = err.Error()
	}
	last := lastLine(msg)
	switch {
	case strings.Contains(msg, "Host key verification failed"),
		strings.Contains(msg, "REMOTE HOST IDENTIFICATION HAS CHANGED"),
		strings.Contains(msg, "No ED25519 host key is known"),
		strings.Contains(msg, "host key is known for"):
		return fmt.Errorf("ssh %s: %w (check known_hosts; nothing was asked): %s", host, ErrHostKey, last)
	case strings.Contains(msg, "Permission denied"), strings.Contains(msg, "Too many authentication failures"):
		return fmt.Errorf("ssh %s: %w (no key was accepted; passwords and passphrases are never asked, use ssh-agent): %s", host, ErrAuth, last)
	case strings.Contains(msg, "Could not resolve hostname"), strings.Contains(msg, "Connection refused"),
		strings.Contains(msg, "timed out"), strings.Contains(msg, "No route to host"),
		strings.Contains(msg, "Network is unreachable"), strings.Contains(msg, "Connection closed by"),
		strings.Contains(msg, "Connection reset"), strings.Contains(msg, "kex_exchange_identification"):
		return fmt.Errorf("ssh %s: %w: %s", host, ErrUnreachable, last)
	}
	return fmt.Errorf("ssh %s: %s", host, msg)
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[i+1:])
	}
	return s
}

// failed is called when a call exited 255: the master may be gone.
// It returns the connection's error when it is (ErrConnectionLost, or
// why connecting fails now), nil when the master still answers (the
// 255 was the remote command's own).
func (c *Conn) failed(ctx context.Context, stderr string) error {
	// The call's own context may be what ended it (a cancel): the check
	// must run all the same.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), checkTimeout)
	defer cancel()
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.check(ctx); ok {
		return nil
	}
	c.up, c.pid = false, 0
	cause := lastLine(stderr)
	if cause == "" {
		cause = "the master connection ended"
	}
	return fmt.Errorf("ssh %s: %w (%s); the next call connects again", c.host, ErrConnectionLost, cause)
}

// closing reports whether Close was called.
func (c *Conn) closing() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// orphaned records a command cut off by a lost connection: the next
// connection ends what it left running.
func (c *Conn) orphaned(marker string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.orphans = append(c.orphans, marker)
}

// sshFailure is the error of a call that exited 255 (none of the
// scripts does): the connection was lost, or ssh failed otherwise.
func (c *Conn) sshFailure(ctx context.Context, stderr string, err error) error {
	stderr = strings.TrimSpace(stderr)
	if ferr := c.failed(ctx, stderr); ferr != nil {
		return ferr
	}
	return classify(c.host, stderr, err)
}

// Run runs `sh -c script sh args…` on the host (through the remote
// agent when it runs, else on a channel of its own) and returns its
// stdout, exit code and trimmed stderr; err is the connection's failure
// or ctx's end.
func (c *Conn) Run(ctx context.Context, script string, args ...string) (out []byte, code int, stderr string, err error) {
	return c.remote.Run(ctx, nil, script, args...)
}

// RealPath is where p really is on the host: `readlink -f -- p` there,
// and for a path that does not exist, its deepest existing ancestor
// resolved with the rest appended. A relative p is taken from the remote
// user's home.
func (c *Conn) RealPath(ctx context.Context, p string) (string, error) {
	return c.remote.RealPath(ctx, p)
}

// Close ends the master (`ssh -O exit`) and removes the control
// directory when Dial made it. Commands still running on the master are
// cut off.
func (c *Conn) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.agent.mu.Lock()
	if c.agent.client != nil {
		_ = c.agent.client.Close() // the agent ends what it runs
		c.agent.client = nil
	}
	c.agent.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	args := append(c.BaseArgs(), "-O", "exit", "--", c.host)
	cmd := exec.CommandContext(ctx, c.ssh, args...)
	cmd.Env = os.Environ()
	out, err := cmd.CombinedOutput()
	c.mu.Lock()
	c.up = false
	c.mu.Unlock()
	c.removeDir()
	if err != nil && !strings.Contains(string(out), "No such file") && !strings.Contains(string(out), "Control socket connect") {
		return fmt.Errorf("ssh %s: closing the master: %v: %s", c.host, err, strings.TrimSpace(string(out)))
	}
	return nil
}

func (c *Conn) removeDir() {
	if c.ownDir {
		_ = os.RemoveAll(c.dir)
	}
}
