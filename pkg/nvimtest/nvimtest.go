package nvimtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/neovim/go-client/nvim"
	"github.com/neovim/go-client/nvim/plugin"

	"github.com/magenta-nvim/magenta/pkg/host"
)

// Wait is how long the Wait helpers wait before failing.
var Wait = 10 * time.Second

// Root is the checkout's root directory.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Binaries lists the Neovim binaries to test against.
func Binaries() []string {
	if list := strings.Fields(os.Getenv("MAGENTA_TEST_NVIMS")); len(list) > 0 {
		return list
	}
	if p, err := exec.LookPath("nvim"); err == nil {
		return []string{p}
	}
	return nil
}

// ForEach runs fn as a subtest for each Neovim binary, named by version.
func ForEach(t *testing.T, fn func(t *testing.T, bin string)) {
	bins := Binaries()
	if len(bins) == 0 {
		t.Skip("no Neovim found: install it (apt-get install neovim) or set MAGENTA_TEST_NVIMS")
	}
	for _, bin := range bins {
		t.Run(Version(t, bin), func(t *testing.T) { fn(t, bin) })
	}
}

// Version returns "nvim-0.10.4" for bin.
func Version(t testing.TB, bin string) string {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", bin, err)
	}
	first := strings.SplitN(string(out), "\n", 2)[0] // "NVIM v0.10.4"
	return "nvim-" + strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(first, "NVIM")), "v")
}

// Nvim is a running headless Neovim.
type Nvim struct {
	T   testing.TB
	V   *nvim.Nvim
	Dir string
	Bin string
}

// Start launches bin with the plugin on 'runtimepath', private XDG
// directories and extraEnv ("NAME=value") added to the environment. An
// XDG_*_HOME given in extraEnv is kept (two Neovims sharing a data
// directory, one after the other). The Neovim is closed when the test
// ends.
func Start(t testing.TB, bin string, extraEnv ...string) *Nvim {
	t.Helper()
	dir := t.TempDir()
	env := append(os.Environ(), extraEnv...)
	for _, x := range []string{"CONFIG", "DATA", "STATE", "CACHE"} {
		if slices.ContainsFunc(extraEnv, func(e string) bool { return strings.HasPrefix(e, "XDG_"+x+"_HOME=") }) {
			continue
		}
		p := filepath.Join(dir, strings.ToLower(x))
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		env = append(env, "XDG_"+x+"_HOME="+p)
	}
	// The directory is also the workspace: Go's build cache would
	// otherwise go under its private XDG_CACHE_HOME, and every
	// checkpoint of the workspace would hash the thousands of files a
	// language server writes there. The test process's own cache is
	// used (outside the workspace; gopls starts faster too).
	if os.Getenv("GOCACHE") == "" && !slices.ContainsFunc(extraEnv, func(e string) bool { return strings.HasPrefix(e, "GOCACHE=") }) {
		if ucd, err := os.UserCacheDir(); err == nil {
			env = append(env, "GOCACHE="+filepath.Join(ucd, "go-build"))
		}
	}
	v, err := nvim.NewChildProcess(
		nvim.ChildProcessCommand(bin),
		nvim.ChildProcessArgs("--embed", "--headless", "--clean", "-n", "-i", "NONE",
			"--cmd", "set rtp^="+Root(), "--cmd", "set columns=160 lines=50"),
		nvim.ChildProcessEnv(env),
		nvim.ChildProcessDir(dir),
		nvim.ChildProcessServe(false),
		nvim.ChildProcessLogf(func(f string, a ...any) { t.Logf("rpc: "+f, a...) }),
	)
	if err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	n := &Nvim{T: t, V: v, Dir: dir, Bin: bin}
	t.Cleanup(func() { _ = v.Close() })
	return n
}

// Serve starts serving the connection; call it after registering
// handlers (StartHost does).
func (n *Nvim) Serve() {
	go func() { _ = n.V.Serve() }()
}

// StartHost serves the host's handlers in-process and makes the Lua
// plugin use this connection as the magenta host.
func (n *Nvim) StartHost(opts host.Options) *host.Host {
	n.T.Helper()
	h := host.New(n.V, opts)
	host.Register(plugin.New(n.V), h)
	n.Serve()
	n.T.Cleanup(h.Close)
	n.Lua(`require('magenta.host').use_channel(...)`, n.V.ChannelID())
	return h
}

// Lua runs code (with ... bound to args) and fails the test on error.
func (n *Nvim) Lua(code string, args ...any) {
	n.T.Helper()
	if err := n.V.ExecLua(code, nil, args...); err != nil {
		n.T.Fatalf("lua %q: %v", code, err)
	}
}

// LuaResult runs code and decodes what it returns into result.
func (n *Nvim) LuaResult(result any, code string, args ...any) {
	n.T.Helper()
	if err := n.V.ExecLua(code, result, args...); err != nil {
		n.T.Fatalf("lua %q: %v", code, err)
	}
}

// Command runs an Ex command and fails the test on error.
func (n *Nvim) Command(cmd string) {
	n.T.Helper()
	if err := n.V.Command(cmd); err != nil {
		n.T.Fatalf(":%s: %v", cmd, err)
	}
}

// Setup calls require("magenta").setup with opts, a Lua table literal.
func (n *Nvim) Setup(opts string) {
	n.T.Helper()
	var ok bool
	n.LuaResult(&ok, "return require('magenta').setup("+opts+")")
	if !ok {
		n.T.Fatalf("setup(%s) failed: %s", opts, n.Messages())
	}
}

// Messages returns :messages.
func (n *Nvim) Messages() string {
	var out string
	_ = n.V.ExecLua(`return vim.api.nvim_exec("messages", true)`, &out)
	return out
}

// Buffer returns the buffer whose b:magenta_role is role, or 0.
func (n *Nvim) Buffer(role string) int {
	n.T.Helper()
	var buf int
	n.LuaResult(&buf, `
		for _, b in ipairs(vim.api.nvim_list_bufs()) do
			local ok, r = pcall(vim.api.nvim_buf_get_var, b, "magenta_role")
			if ok and r == ... then return b end
		end
		return 0`, role)
	return buf
}

// Lines returns the lines of buf.
func (n *Nvim) Lines(buf int) []string {
	n.T.Helper()
	var lines []string
	n.LuaResult(&lines, `return vim.api.nvim_buf_get_lines(..., 0, -1, false)`, buf)
	return lines
}

// Text returns the lines of buf joined with newlines.
func (n *Nvim) Text(buf int) string { return strings.Join(n.Lines(buf), "\n") }

// WaitFor polls cond until it holds, failing after Wait with what and the
// last state describe returns.
func (n *Nvim) WaitFor(what string, cond func() bool, describe func() string) {
	n.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Wait)
	defer cancel()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			n.T.Fatalf("timed out after %v waiting for %s; state:\n%s\nmessages:\n%s", Wait, what, describe(), n.Messages())
		case <-tick.C:
		}
	}
}

// WaitForText waits until the buffer with role contains sub, and returns
// its text.
func (n *Nvim) WaitForText(role, sub string) string {
	n.T.Helper()
	var text string
	n.WaitFor(fmt.Sprintf("%s buffer to contain %q", role, sub), func() bool {
		buf := n.Buffer(role)
		if buf == 0 {
			return false
		}
		text = n.Text(buf)
		return strings.Contains(text, sub)
	}, func() string { return text })
	return text
}

// Type enters text in insert mode in the input buffer, as a user would,
// and returns to normal mode.
func (n *Nvim) Type(text string) {
	n.T.Helper()
	n.FocusRole("input")
	n.Keys("i" + text + "<Esc>")
}

// Keys feeds keys (with <> notation) through mappings, as if typed, and
// returns once they are processed.
func (n *Nvim) Keys(keys string) {
	n.T.Helper()
	n.Lua(`
		local keys = vim.api.nvim_replace_termcodes(..., true, false, true)
		vim.api.nvim_feedkeys(keys, "mx", false)`, keys)
}

// FocusRole moves the cursor to a window showing the role's buffer.
func (n *Nvim) FocusRole(role string) {
	n.T.Helper()
	buf := n.Buffer(role)
	var ok bool
	n.LuaResult(&ok, `
		local win = vim.fn.win_findbuf(...)[1]
		if not win then return false end
		vim.api.nvim_set_current_win(win)
		return true`, buf)
	if !ok {
		n.T.Fatalf("no window shows the %s buffer", role)
	}
}

// CursorTo puts the cursor on the first line of the current buffer
// containing sub.
func (n *Nvim) CursorTo(sub string) {
	n.T.Helper()
	var ok bool
	n.LuaResult(&ok, `
		for i, l in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
			if l:find(..., 1, true) then
				vim.api.nvim_win_set_cursor(0, {i, 0})
				return true
			end
		end
		return false`, sub)
	if !ok {
		n.T.Fatalf("no line contains %q", sub)
	}
}

// HostBinary returns the built host: MAGENTA_HOST_BIN (set by `make
// test`, with the provider process, the supervisor and the MCP gateway
// beside it), or a fresh build of the four in a temporary directory.
func HostBinary(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv("MAGENTA_HOST_BIN"); bin != "" {
		return bin
	}
	dir := t.TempDir()
	for _, cmd := range []string{"magenta-host", "magenta-provider", "magenta-supervisor", "magenta-mcp"} {
		build := exec.Command("go", "build", "-o", filepath.Join(dir, cmd), "./cmd/"+cmd)
		build.Dir = Root()
		if msg, err := build.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", cmd, err, msg)
		}
	}
	return filepath.Join(dir, "magenta-host")
}
