package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/chat"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
	"github.com/magenta-nvim/magenta/pkg/threadstore"
)

// startSaving opens a Neovim whose stdpath("data") is dataDir and whose
// working directory (the workspace) is work, with the built host on a
// profile that talks to srv.
func startSaving(t *testing.T, nvimBin, hostBin string, srv *providertest.Server, dataDir, work string) *nvimtest.Nvim {
	t.Helper()
	// Registered before Neovim's own cleanup, so it runs after Neovim
	// closed and before the temporary directories are removed: a
	// checkpoint's git that a killed (or closing) host left running still
	// writes into dataDir, and removing it under git fails the test.
	t.Cleanup(func() { waitGitGone(t, work) })
	n := nvimtest.Start(t, nvimBin, "MAGENTA_E2E_KEY=test-key", "XDG_DATA_HOME="+dataDir)
	n.Serve()
	n.Command("cd " + work)
	n.Setup(fmt.Sprintf(`{
		profiles = { { name = "wire", provider = "anthropic", model = "claude-test", baseUrl = %q, apiKeyEnvVar = "MAGENTA_E2E_KEY" } },
		host = { binary = %q, logFile = %q },
		sandbox = { enabled = false },
	}`, srv.URL, hostBin, filepath.Join(n.Dir, "magenta.log")))
	t.Cleanup(func() {
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(n.Dir, "magenta.log"))
			t.Logf("host log:\n%s", log)
		}
	})
	return n
}

// waitGitGone waits, up to 15 s, until no git process works in dir.
func waitGitGone(t *testing.T, dir string) {
	t.Helper()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real // /proc/<pid>/cwd is the real path
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		busy := ""
		procs, _ := filepath.Glob("/proc/[0-9]*")
		for _, p := range procs {
			comm, _ := os.ReadFile(p + "/comm")
			cwd, _ := os.Readlink(p + "/cwd")
			if strings.TrimSpace(string(comm)) == "git" && (cwd == dir || strings.HasPrefix(cwd, dir+"/")) {
				busy = p
				break
			}
		}
		if busy == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("a git process (%s) still works in %s", busy, dir)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// send types text in the input and sends it.
func send(n *nvimtest.Nvim, text string) {
	n.Type(text)
	n.Keys("<CR>")
}

// openList shows :Magenta threads and waits for a row containing sub
// and the row of the shown thread (marked "* "): a new host's first
// thread is listed a moment after the saved ones, which moves the rows.
func openList(n *nvimtest.Nvim, sub string) string {
	n.Command("Magenta threads")
	var text string
	n.WaitFor("the thread list with "+sub, func() bool {
		text = n.Text(n.Buffer("display"))
		return strings.HasPrefix(text, "# Threads") && strings.Contains(text, sub) && strings.Contains(text, "\n* ")
	}, func() string { return text })
	return text
}

// openFromList opens the thread whose row in :Magenta threads contains
// sub, with <CR> on it.
func openFromList(n *nvimtest.Nvim, sub string) string {
	text := openList(n, sub)
	n.FocusRole("display")
	// The renderer records the frame it drew just after Neovim shows it,
	// so a key pressed at once can meet the frame before: press again
	// while the list stays.
	for deadline := time.Now().Add(nvimtest.Wait); ; {
		n.CursorTo(sub)
		n.Keys("<CR>")
		if waitUntil(time.Second, func() bool { return !strings.HasPrefix(n.Text(n.Buffer("display")), "# Threads") }) {
			return text
		}
		if time.Now().After(deadline) {
			n.T.Fatalf("<CR> on %q did not open it:\n%s", sub, n.Text(n.Buffer("display")))
		}
	}
}

// waitUntil polls cond for up to d.
func waitUntil(d time.Duration, cond func() bool) bool {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for end := time.Now().Add(d); time.Now().Before(end); <-tick.C {
		if cond() {
			return true
		}
	}
	return cond()
}

func hostPid(n *nvimtest.Nvim) int {
	var info struct {
		Pid int `msgpack:"pid"`
	}
	n.LuaResult(&info, `return (require('magenta.host').request("version"))`)
	return info.Pid
}

func waitHostGone(n *nvimtest.Nvim) {
	n.WaitFor("the host to stop", func() bool {
		var running bool
		n.LuaResult(&running, `return require('magenta.host').running()`)
		return !running
	}, n.Messages)
}

// storeDir is the one workspace directory under dataDir (stdpath("data")
// is $XDG_DATA_HOME/nvim).
func storeDir(t *testing.T, dataDir string) string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(dataDir, "nvim", "magenta", "threads", "*"))
	require.NoError(t, err)
	require.Len(t, dirs, 1)
	return dirs[0]
}

// A thread outlives its host (stopped, then started again by the next
// command) and its Neovim (a new one on the same data directory and
// workspace): it is listed, shows its history, and the next message
// sends the whole history.
func TestSavedThreadSurvivesHostAndNeovimRestarts(t *testing.T) {
	hostBin := nvimtest.HostBinary(t)
	nvimtest.ForEach(t, func(t *testing.T, nvimBin string) {
		srv := providertest.NewServer(t)
		dataDir, work := t.TempDir(), t.TempDir()
		n := startSaving(t, nvimBin, hostBin, srv, dataDir, work)
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")
		send(n, "hello")
		c := srv.Next(t)
		c.Text("Hi. ")
		c.ToolUse("tu_1", "thread_title", map[string]string{"title": "Kept thread"})
		c.Stop("tool_use")
		srv.Next(t).Reply("Named it.")
		n.WaitForText("display", "Named it.")
		n.WaitForText("display", "ready")

		// The host stops; the next message starts one, which reopens the
		// thread the old one showed, and the message continues it.
		n.Command("Magenta restart")
		waitHostGone(n)
		send(n, "more")
		c = srv.Next(t)
		require.Len(t, c.Messages, 5, "the whole history is sent")
		assert.Equal(t, []string{"hello"}, c.Messages[0].Texts())
		assert.Equal(t, []string{"more"}, c.Messages[4].Texts())
		c.Reply("More.")
		text := n.WaitForText("display", "More.")
		assert.Contains(t, text, "## user\nhello")
		assert.Contains(t, text, "✓ thread_title: Kept thread")
		n.WaitForText("display", "ready")
		text = openList(n, "Kept thread")
		assert.Contains(t, text, "Kept thread  [wire, idle, 6 messages", "listed, and open in this host")
		pid := hostPid(n)
		_ = n.V.Close() // Neovim may report the host job it ended
		// The host exits with its Neovim, and its lock with it (else the
		// next Neovim would open the thread read-only).
		n.WaitFor("the old host to exit", func() bool { return syscall.Kill(pid, 0) != nil }, func() string { return "" })

		n2 := startSaving(t, nvimBin, hostBin, srv, dataDir, work)
		text = openFromList(n2, "Kept thread")
		assert.Contains(t, text, "saved, 6 messages")
		n2.WaitForText("display", "More.")
		send(n2, "last")
		c = srv.Next(t)
		require.Len(t, c.Messages, 7)
		c.Reply("Bye.")
		n2.WaitForText("display", "Bye.")
		assert.NotContains(t, n2.Messages(), "skipped the saved thread")
	})
}

// kill -9 of the host: first while a tool call waits (for approval), then
// while a reply streams. Reopened, the thread has everything before the
// streaming reply, and the unfinished tool call has the interrupted
// result.
func TestKilledHostThreadResumes(t *testing.T) {
	hostBin := nvimtest.HostBinary(t)
	nvimtest.ForEach(t, func(t *testing.T, nvimBin string) {
		srv := providertest.NewServer(t)
		n := startSaving(t, nvimBin, hostBin, srv, t.TempDir(), t.TempDir())
		n.Command("Magenta toggle")
		send(n, "first")
		c := srv.Next(t)
		c.Text("Checking. ")
		c.ToolUse("tu_1", "bash_command", map[string]string{"command": "touch never-made"})
		c.Stop("tool_use")
		n.WaitForText("display", "> YES")
		require.NoError(t, syscall.Kill(hostPid(n), syscall.SIGKILL))
		waitHostGone(n)

		// The next command starts a host, which reopens the thread: the
		// user's message, the reply and the interrupted result.
		openFromList(n, "3 messages")
		text := n.WaitForText("display", "interrupted")
		assert.Contains(t, text, "## user\nfirst")
		assert.Contains(t, text, "Checking.")
		assert.Contains(t, text, "✗ bash_command")
		send(n, "second")
		c = srv.Next(t)
		require.Len(t, c.Messages, 3)
		assert.Equal(t, []string{chat.InterruptedResult, "second"}, c.Messages[2].Texts())
		assert.Equal(t, true, c.Messages[2].Content[0]["is_error"])
		c.Text("Half a rep")
		n.WaitForText("display", "Half a rep")
		require.NoError(t, syscall.Kill(hostPid(n), syscall.SIGKILL))
		waitHostGone(n)

		openFromList(n, "4 messages") // first, the reply, the interrupted result, second
		text = n.WaitForText("display", "second")
		assert.NotContains(t, text, "Half a rep", "only the text still streaming is lost")
		send(n, "third")
		c = srv.Next(t)
		require.Len(t, c.Messages, 3)
		assert.Equal(t, []string{chat.InterruptedResult, "second", "third"}, c.Messages[2].Texts())
		c.Reply("Done.")
		n.WaitForText("display", "Done.")
	})
}

// Two Neovims in one workspace write their threads at once; each can
// open the other's only read-only; both files stay whole.
func TestTwoNeovimsInOneWorkspace(t *testing.T) {
	hostBin := nvimtest.HostBinary(t)
	nvimtest.ForEach(t, func(t *testing.T, nvimBin string) {
		srv := providertest.NewServer(t)
		dataDir, work := t.TempDir(), t.TempDir()
		a := startSaving(t, nvimBin, hostBin, srv, dataDir, work)
		b := startSaving(t, nvimBin, hostBin, srv, dataDir, work)
		a.Command("Magenta toggle")
		b.Command("Magenta toggle")
		send(a, "from a")
		send(b, "from b")
		calls := map[string]*providertest.HTTPCall{}
		for range 2 {
			c := srv.Next(t)
			calls[c.Messages[0].Texts()[0]] = c
		}
		// Both replies stream at once.
		for _, part := range []string{"one ", "two ", "three"} {
			calls["from a"].Text("A " + part)
			calls["from b"].Text("B " + part)
		}
		calls["from a"].Stop("end_turn")
		calls["from b"].Stop("end_turn")
		a.WaitForText("display", "A three")
		b.WaitForText("display", "B three")
		a.WaitForText("display", "ready")
		b.WaitForText("display", "ready")

		openFromList(a, "saved, 2 messages")
		text := a.WaitForText("display", "shown read-only here")
		assert.Contains(t, text, "B three")
		send(a, "may I?")
		a.WaitForText("display", "Start another thread with :Magenta new-thread")

		send(b, "b goes on")
		c := srv.Next(t)
		require.Len(t, c.Messages, 3)
		c.Reply("B four")
		b.WaitForText("display", "B four")
		b.WaitForText("display", "ready")

		var warnings []string
		var mu sync.Mutex
		store, err := threadstore.Open(filepath.Join(dataDir, "nvim"), work, func(m string) { mu.Lock(); warnings = append(warnings, m); mu.Unlock() })
		require.NoError(t, err)
		list := store.List()
		require.Len(t, list, 2)
		for _, s := range list {
			th, err := store.Load(s.ID)
			require.NoError(t, err)
			assert.Contains(t, []int{2, 4}, len(th.Messages))
		}
		assert.Empty(t, warnings)
		assert.Equal(t, store.Path(), storeDir(t, dataDir))
	})
}

// Corrupt and truncated files are skipped with one warning each, however
// often the list is drawn; the good thread is listed.
func TestCorruptSavedThreadsWarnOnce(t *testing.T) {
	hostBin := nvimtest.HostBinary(t)
	nvimtest.ForEach(t, func(t *testing.T, nvimBin string) {
		srv := providertest.NewServer(t)
		dataDir, work := t.TempDir(), t.TempDir()
		n := startSaving(t, nvimBin, hostBin, srv, dataDir, work)
		n.Command("Magenta toggle")
		send(n, "good one")
		srv.Next(t).Reply("fine")
		n.WaitForText("display", "ready")
		dir := storeDir(t, dataDir)
		bad := map[string]string{
			"0193a1b2-0000-7000-8000-0000000000c1": "\x00\x01 not a thread\n",
			"0193a1b2-0000-7000-8000-0000000000c2": `{"k":"header","h":{"v":1,"id":"0193a1b2`,
		}
		for id, data := range bad {
			require.NoError(t, os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(data), 0o600))
		}
		for range 3 {
			openList(n, "2 messages")
			n.WaitFor("the warnings", func() bool {
				return strings.Count(n.Messages(), "skipped the saved thread") >= len(bad)
			}, n.Messages)
		}
		msgs := n.Messages()
		for id := range bad {
			assert.Equal(t, 1, strings.Count(msgs, id+".jsonl"), msgs)
		}
	})
}
