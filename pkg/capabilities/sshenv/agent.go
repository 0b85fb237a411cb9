package sshenv

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/posixremote"
	"github.com/magenta-nvim/magenta/pkg/capabilities/procsup"
	"github.com/magenta-nvim/magenta/pkg/capabilities/remoteagent"
)

// agentHelloTimeout bounds the wait for a starting agent's hello.
const agentHelloTimeout = 10 * time.Second

// agentSlot is the Conn's remote agent (package remoteagent): the
// commands' fast path. why says, when it is not running, why commands
// go on channels of their own.
type agentSlot struct {
	starting sync.Mutex // held by ensureAgent
	mu       sync.Mutex
	client   *remoteagent.Client
	// failed is a setup failure that will not change for this Conn (no
	// binary for the machine, an upload refused, no hello): the agent is
	// not tried again. A channel that ended is tried again.
	failed error
	// remote is the agent's path on the machine, once there.
	remote string
}

// AgentStatus says how commands run: through the remote agent, or on a
// channel each and why.
func (c *Conn) AgentStatus() string {
	c.agent.mu.Lock()
	defer c.agent.mu.Unlock()
	switch {
	case c.agent.client != nil:
		return "commands run through the remote agent " + c.agent.remote
	case c.agent.failed != nil:
		return "commands run on a channel each (slower): " + c.agent.failed.Error()
	}
	return "commands run on a channel each (the remote agent is not started)"
}

// AgentRunning reports whether commands run through the remote agent.
func (c *Conn) AgentRunning() bool { return c.agentClient() != nil }

// agentClient is the running agent, nil when there is none.
func (c *Conn) agentClient() *remoteagent.Client {
	c.agent.mu.Lock()
	defer c.agent.mu.Unlock()
	return c.agent.client
}

// ensureAgent starts the agent when none runs and it may: one call to
// learn the machine and whether the binary is there, one to upload it
// when it is not, and the agent's own channel. A failure leaves
// commands on channels of their own.
func (c *Conn) ensureAgent(ctx context.Context) {
	// One start at a time; agent.mu is not held while starting (the setup
	// scripts ask agentClient, and go on channels of their own then).
	c.agent.starting.Lock()
	defer c.agent.starting.Unlock()
	c.agent.mu.Lock()
	if c.agent.client != nil {
		select {
		case <-c.agent.client.Done():
			c.agent.client = nil // ended: started again below
		default:
			c.agent.mu.Unlock()
			return
		}
	}
	failed := c.agent.failed
	c.agent.mu.Unlock()
	if failed != nil || c.closing() {
		return
	}
	client, remote, err := c.startAgent(ctx)
	c.agent.mu.Lock()
	defer c.agent.mu.Unlock()
	switch {
	case err != nil:
		if ctx.Err() == nil {
			c.agent.failed = err
		}
	case c.closing():
		_ = client.Close() // Close ran meanwhile
	default:
		c.agent.client, c.agent.remote = client, remote
	}
}

// agentSetupScript $@=candidate names: prints the machine (uname -sm),
// the directory the agent lives in, and `have NAME SHA256` for each
// candidate already there (the hash empty without sha256sum).
const agentSetupScript = `uname -sm
d=${XDG_CACHE_HOME:-$HOME/.cache}/magenta
printf '%s\n' "$d"
for f in "$@"; do
	if [ -x "$d/$f" ]; then
		s=$(sha256sum < "$d/$f" 2>/dev/null) || s=
		printf 'have %s %s\n' "$f" "${s%% *}"
	fi
done
exit 0`

// agentUploadScript $1=dir $2=name $3=size, the binary on stdin:
// written beside, checked for length, made executable and renamed into
// place; the agents of other builds are removed (a running one keeps
// its file until it exits).
const agentUploadScript = `set -e
umask 077
mkdir -p "$1"
t="$1/.$2.$$"
cat > "$t"
n=$(wc -c < "$t")
if [ "$n" -ne "$3" ]; then rm -f "$t"; echo "upload cut short ($n of $3 bytes)" >&2; exit 3; fi
chmod 700 "$t"
mv -f "$t" "$1/$2"
for f in "$1"/agent-*; do [ "$f" = "$1/$2" ] || rm -f "$f"; done
exit 0`

func (c *Conn) startAgent(ctx context.Context) (*remoteagent.Client, string, error) {
	local := agentBinaries(c.agentDir)
	if len(local) == 0 {
		return nil, "", errors.New("no remote agent binary beside the host")
	}
	names := make([]string, 0, len(local))
	for _, b := range local {
		names = append(names, b.name)
	}
	out, code, stderr, err := c.remote.Run(ctx, nil, agentSetupScript, names...)
	if err != nil || code != 0 {
		return nil, "", fmt.Errorf("probing for the remote agent: %v (exit %d) %s", err, code, stderr)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) < 2 {
		return nil, "", fmt.Errorf("probing for the remote agent: unexpected output %q", out)
	}
	arch, ok := goArch(lines[0])
	if !ok {
		return nil, "", fmt.Errorf("no remote agent for %q (Linux on %s only)", lines[0], strings.Join(archNames(local), ", "))
	}
	var bin *agentBinary
	for i := range local {
		if local[i].arch == arch {
			bin = &local[i]
		}
	}
	if bin == nil {
		return nil, "", fmt.Errorf("no remote agent built for linux/%s (make remote-agents builds them)", arch)
	}
	dir := lines[1]
	remote := path.Join(dir, bin.name)
	// The file there is run only when its content is this build's: one
	// changed since (by a command the model ran there, say, to be run
	// unsupervised by the next connection) is uploaded again, as is one
	// that cannot be hashed there (no sha256sum).
	have := false
	for _, l := range lines[2:] {
		have = have || l == "have "+bin.name+" "+bin.sum
	}
	if !have {
		if err := c.uploadAgent(ctx, bin, dir); err != nil {
			return nil, "", err
		}
	}
	client, err := c.runAgent(ctx, remote)
	if err != nil {
		return nil, "", err
	}
	return client, remote, nil
}

func (c *Conn) uploadAgent(ctx context.Context, bin *agentBinary, dir string) error {
	f, err := os.Open(bin.path)
	if err != nil {
		return fmt.Errorf("remote agent: %w", err)
	}
	defer f.Close()
	_, code, stderr, err := c.remote.Run(ctx, f, agentUploadScript, dir, bin.name, strconv.FormatInt(bin.size, 10))
	if err != nil || code != 0 {
		return fmt.Errorf("uploading the remote agent to %s on %s: %v (exit %d) %s", dir, c.host, err, code, strings.TrimSpace(stderr))
	}
	return nil
}

// runAgent starts the agent on a channel of its own and waits for its
// hello. Its stderr goes to agent.log in the control directory.
func (c *Conn) runAgent(ctx context.Context, remote string) (*remoteagent.Client, error) {
	cmd := c.Command(context.Background(), false, "exec "+quote(remote)+" "+remoteagent.AgentFlag)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	logFile, err := os.OpenFile(filepath.Join(c.dir, "agent.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		closeBoth(outR, outW)
		return nil, err
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = outW, logFile
	if err := cmd.Start(); err != nil {
		closeBoth(outR, outW)
		return nil, err
	}
	outW.Close()
	hctx, cancel := context.WithTimeout(ctx, agentHelloTimeout)
	defer cancel()
	client, err := remoteagent.NewClient(hctx, outR, stdin)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		outR.Close()
		return nil, fmt.Errorf("starting the remote agent %s: %w", remote, err)
	}
	go func() {
		<-client.Done()
		outR.Close()
		_ = cmd.Wait()
	}()
	return client, nil
}

func closeBoth(a, b io.Closer) {
	_ = a.Close()
	_ = b.Close()
}

// agentBinary is a local agent binary for one architecture.
type agentBinary struct {
	arch, path, name string
	sum              string // sha256, hex
	size             int64
}

// agentBinaries are the agent binaries in dir: magenta-supervisor for
// this machine's architecture (when it is Linux) and
// magenta-supervisor-linux-ARCH for others. Each is named on the remote
// machine by its architecture and content hash.
func agentBinaries(dir string) []agentBinary {
	if dir == "" {
		return nil
	}
	var found []agentBinary
	add := func(arch, p string) {
		if b, ok := hashedBinary(arch, p); ok {
			found = append(found, b)
		}
	}
	if runtime.GOOS == "linux" {
		add(runtime.GOARCH, filepath.Join(dir, procsup.BinaryName))
	}
	matches, _ := filepath.Glob(filepath.Join(dir, procsup.BinaryName+"-linux-*"))
	for _, m := range matches {
		arch := strings.TrimPrefix(filepath.Base(m), procsup.BinaryName+"-linux-")
		if runtime.GOOS == "linux" && arch == runtime.GOARCH {
			continue
		}
		add(arch, m)
	}
	return found
}

// hashes caches a binary's hash by path, size and modification time.
var hashes sync.Map // string → string

func hashedBinary(arch, p string) (agentBinary, bool) {
	info, err := os.Stat(p)
	if err != nil || !info.Mode().IsRegular() {
		return agentBinary{}, false
	}
	key := fmt.Sprintf("%s\x00%d\x00%d", p, info.Size(), info.ModTime().UnixNano())
	sum, ok := hashes.Load(key)
	if !ok {
		f, err := os.Open(p)
		if err != nil {
			return agentBinary{}, false
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return agentBinary{}, false
		}
		sum = hex.EncodeToString(h.Sum(nil))
		hashes.Store(key, sum)
	}
	full := sum.(string)
	return agentBinary{arch: arch, path: p, size: info.Size(), sum: full, name: "agent-" + arch + "-" + full[:16]}, true
}

// goArch maps `uname -sm` to a Go architecture (Linux only).
func goArch(uname string) (string, bool) {
	f := strings.Fields(uname)
	if len(f) != 2 || f[0] != "Linux" {
		return "", false
	}
	switch f[1] {
	case "x86_64", "amd64":
		return "amd64", true
	case "aarch64", "arm64", "armv8l":
		return "arm64", true
	case "i386", "i686":
		return "386", true
	case "armv7l", "armv6l":
		return "arm", true
	case "riscv64", "ppc64le", "s390x":
		return f[1], true
	}
	return "", false
}

func archNames(bins []agentBinary) []string {
	var names []string
	for _, b := range bins {
		names = append(names, b.arch)
	}
	return names
}

// RunScript implements posixremote.ScriptRunner: `sh -c script sh
// args…` through the agent when one runs, in the remote user's home as
// on a channel of its own; handled is false without one (or when it did
// not take the script). A script its channel left is ErrConnectionLost.
func (r *runner) RunScript(ctx context.Context, script string, args ...string) (out []byte, code int, stderr string, handled bool, err error) {
	c := (*Conn)(r)
	agent := c.agentClient()
	if agent == nil {
		return nil, 0, "", false, nil
	}
	marker, err := posixremote.NewMarker()
	if err != nil {
		return nil, 0, "", false, nil
	}
	var o, e bytes.Buffer
	cmd, err := agent.StartTo(remoteagent.Request{Argv: append([]string{"sh", "-c", script, "sh"}, args...), Marker: marker,
		GraceMillis: int(capabilities.ShellTerminateGrace / time.Millisecond)}, &o, &e)
	if err != nil {
		return nil, 0, "", false, nil // not taken: on a channel of its own
	}
	done := make(chan syscall.WaitStatus, 1)
	go func() {
		ws, _ := cmd.Wait()
		done <- ws
	}()
	var ws syscall.WaitStatus
	select {
	case ws = <-done:
	case <-ctx.Done():
		cmd.Kill()
		<-done
		return nil, -1, "", true, ctx.Err()
	}
	if cmd.Lost() {
		return nil, exitSSH, "", true, c.agentLost(ctx)
	}
	code = ws.ExitStatus()
	if ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	return o.Bytes(), code, strings.TrimSpace(e.String()), true, nil
}

var _ posixremote.ScriptRunner = (*runner)(nil)

// agentLost is the error of a command or script whose agent channel
// ended under it: whatever the master says now, its end is unknown. It
// is the master's failure when that is gone, else ErrConnectionLost
// naming the agent.
func (c *Conn) agentLost(ctx context.Context) error {
	if err := c.failed(ctx, ""); err != nil {
		return err
	}
	return fmt.Errorf("ssh %s: %w (the remote agent's channel ended); the next call starts it again", c.host, ErrConnectionLost)
}
