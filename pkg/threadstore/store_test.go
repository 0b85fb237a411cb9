package threadstore

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// openStore opens a store in a temporary data directory and collects
// its warnings.
func openStore(t *testing.T) (*Store, *[]string) {
	t.Helper()
	var warnings []string
	var mu sync.Mutex // List reads files on several goroutines
	s, err := Open(t.TempDir(), "/home/u/src/my app", func(msg string) { mu.Lock(); warnings = append(warnings, msg); mu.Unlock() })
	require.NoError(t, err)
	return s, &warnings
}

const threadA = "0193a1b2-0000-7000-8000-000000000001"

func sampleMessages() []provider.Message {
	return []provider.Message{
		{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("list the files")}},
		{Role: provider.RoleAssistant, Content: []provider.Block{
			provider.TextBlock("Let me look."),
			{Kind: provider.BlockToolUse, ToolUseID: "tu_1", ToolName: "bash_command", Input: json.RawMessage(`{"command":"ls"}`)},
		}},
		{Role: provider.RoleUser, Content: []provider.Block{
			{Kind: provider.BlockToolResult, ToolUseID: "tu_1", Result: []provider.Block{
				provider.TextBlock("a.go\nb.go"),
				{Kind: provider.BlockImage, MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}},
			}, IsError: true},
		}},
	}
}

func TestWorkspaceKey(t *testing.T) {
	a, b := WorkspaceKey("/home/u/work/app"), WorkspaceKey("/srv/app")
	assert.True(t, strings.HasPrefix(a, "app-"), a)
	assert.NotEqual(t, a, b, "same base name, different paths")
	assert.Equal(t, a, WorkspaceKey("/home/u/work/app/"))
	assert.Equal(t, "my_app_-", WorkspaceKey("/x/my app!")[:8])
	assert.True(t, strings.HasPrefix(WorkspaceKey("/"), "root-"))
	assert.True(t, strings.HasPrefix(WorkspaceKey("/x/.hidden"), "hidden-"))
}

func TestAppendAndReload(t *testing.T) {
	s, warnings := openStore(t)
	w, err := s.Create(Header{ID: threadA, Env: Env{Type: "docker", Container: "dev", Cwd: "/work"}, ParentID: "p1", Profile: "fast"})
	require.NoError(t, err)
	for i, m := range sampleMessages() {
		var typed []Typed
		if i == 0 {
			typed = []Typed{{Block: 0, Attached: []string{"@diff (2 lines)"}}}
		}
		require.NoError(t, w.Message(m, Display{Typed: typed}))
	}
	require.NoError(t, w.Title("Listing"))
	require.NoError(t, w.Profile("slow"))
	require.NoError(t, w.Usage(Usage{Input: 10, Output: 3, Cost: 0.5, Priced: true}))
	open := s.List() // the summary file is older than the log: the rest is read from the log
	require.Len(t, open, 1)
	assert.Equal(t, "Listing", open[0].Title)
	assert.Equal(t, "slow", open[0].Profile)
	assert.Equal(t, 3, open[0].Messages)
	require.NoError(t, w.Close())

	got, err := s.Load(threadA)
	require.NoError(t, err)
	assert.Equal(t, "Listing", got.Title)
	assert.Equal(t, Env{Type: "docker", Container: "dev", Cwd: "/work"}, got.Header.Env)
	assert.Equal(t, "p1", got.Header.ParentID)
	assert.Equal(t, "slow", got.Header.Profile, "the latest profile")
	assert.Equal(t, "/home/u/src/my app", got.Header.Workspace)
	assert.Equal(t, Usage{Input: 10, Output: 3, Cost: 0.5, Priced: true}, got.Usage)
	require.Len(t, got.Messages, 3)
	for i, m := range sampleMessages() {
		assert.Equal(t, m, got.Messages[i].Message)
	}
	assert.Equal(t, []Typed{{Block: 0, Attached: []string{"@diff (2 lines)"}}}, got.Messages[0].Display.Typed)

	list := s.List()
	require.Len(t, list, 1)
	assert.Equal(t, "Listing", list[0].Title)
	assert.Equal(t, 3, list[0].Messages)
	assert.Equal(t, "docker:dev", list[0].Env.Label())
	assert.Empty(t, *warnings)

	// Reopened for writing: the next records follow the old ones.
	w, got, err = s.OpenWriter(threadA)
	require.NoError(t, err)
	require.Len(t, got.Messages, 3)
	require.NoError(t, w.Message(provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{provider.TextBlock("done")}}, Display{}))
	require.NoError(t, w.Close())
	got, err = s.Load(threadA)
	require.NoError(t, err)
	assert.Len(t, got.Messages, 4)
	assert.Equal(t, 4, s.List()[0].Messages)
}

func TestInvalidToolInputIsSaved(t *testing.T) {
	s, _ := openStore(t)
	w, err := s.Create(Header{ID: threadA})
	require.NoError(t, err)
	bad := provider.Message{Role: provider.RoleAssistant, Content: []provider.Block{{Kind: provider.BlockToolUse, ToolUseID: "x", ToolName: "t", Input: json.RawMessage(`{"a":`)}}}
	require.NoError(t, w.Message(bad, Display{}))
	w.Close()
	got, err := s.Load(threadA)
	require.NoError(t, err)
	assert.JSONEq(t, `{"_invalid_arguments":"{\"a\":"}`, string(got.Messages[0].Content[0].Input))
}

func TestTornLastLineIsIgnoredAndCutOnReopen(t *testing.T) {
	s, warnings := openStore(t)
	w, err := s.Create(Header{ID: threadA})
	require.NoError(t, err)
	require.NoError(t, w.Message(sampleMessages()[0], Display{}))
	w.Close()
	f, err := os.OpenFile(s.logPath(threadA), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"k":"msg","m":{"role":"assistant","content":[{"kind":"text","text":"half`)
	require.NoError(t, err)
	f.Close()

	got, err := s.Load(threadA)
	require.NoError(t, err)
	assert.Len(t, got.Messages, 1)
	assert.Len(t, s.List(), 1, "a stale summary is rebuilt from the log")
	assert.Equal(t, 1, s.List()[0].Messages)

	w, _, err = s.OpenWriter(threadA)
	require.NoError(t, err)
	require.NoError(t, w.Message(sampleMessages()[1], Display{}))
	w.Close()
	got, err = s.Load(threadA)
	require.NoError(t, err)
	assert.Len(t, got.Messages, 2)
	assert.Empty(t, *warnings, "a torn last line is not corruption")
}

func TestCorruptAndTruncatedFilesAreSkippedWithOneWarning(t *testing.T) {
	s, warnings := openStore(t)
	w, err := s.Create(Header{ID: threadA})
	require.NoError(t, err)
	w.Close()
	files := map[string]string{
		"0193a1b2-0000-7000-8000-00000000000b": "not json at all\n",
		"0193a1b2-0000-7000-8000-00000000000c": `{"k":"header","h":{"v":1,"id":"0193a1b2-0000-7000-8000-00000000000c"`, // cut inside the header
		"0193a1b2-0000-7000-8000-00000000000d": "",
		"0193a1b2-0000-7000-8000-00000000000e": `{"k":"header","h":{"v":1,"id":"0193a1b2-0000-7000-8000-00000000000e"}}` + "\n\x00\x00garbage\n" + `{"k":"title","title":"x"}` + "\n",
		"0193a1b2-0000-7000-8000-00000000000f": `{"k":"msg","m":{"role":"user","content":[]}}` + "\n",
	}
	for id, text := range files {
		require.NoError(t, os.WriteFile(s.logPath(id), []byte(text), 0o600))
	}
	for range 3 {
		list := s.List()
		require.Len(t, list, 1)
		assert.Equal(t, threadA, list[0].ID)
	}
	assert.Len(t, *warnings, len(files), "one warning per bad file, however often listed: %q", *warnings)
	for id := range files {
		assert.Contains(t, strings.Join(*warnings, "\n"), id+".jsonl")
		_, err := s.Load(id)
		assert.Error(t, err)
	}
	assert.Len(t, *warnings, len(files))
}

func TestUnknownRecordKindsAreSkipped(t *testing.T) {
	s, warnings := openStore(t)
	w, err := s.Create(Header{ID: threadA})
	require.NoError(t, err)
	w.Close()
	f, _ := os.OpenFile(s.logPath(threadA), os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintln(f, `{"k":"bookmark","summary":"…","future":[1,2]}`)
	fmt.Fprintln(f, `{"k":"msg","m":{"role":"user","content":[{"kind":"text","text":"hi","new_field":1}]},"extra":true}`)
	f.Close()
	got, err := s.Load(threadA)
	require.NoError(t, err)
	require.Len(t, got.Messages, 1)
	assert.Equal(t, "hi", got.Messages[0].Content[0].Text)
	assert.Empty(t, *warnings)
}

func TestDeleteAndPrune(t *testing.T) {
	s, _ := openStore(t)
	ids := []string{"0193a1b2-0000-7000-8000-000000000011", "0193a1b2-0000-7000-8000-000000000012", "0193a1b2-0000-7000-8000-000000000013"}
	var open *Writer
	for i, id := range ids {
		w, err := s.Create(Header{ID: id})
		require.NoError(t, err)
		if i == 2 {
			open = w
		} else {
			w.Close()
		}
		old := time.Now().Add(-10 * 24 * time.Hour)
		if i == 1 {
			old = time.Now()
		}
		require.NoError(t, os.Chtimes(s.logPath(id), old, old))
	}
	assert.ErrorIs(t, s.Delete(ids[2]), ErrLocked, "an open thread is not deleted")
	assert.Equal(t, 1, s.Prune(7*24*time.Hour, time.Now()), "old and closed: pruned; new or open: kept")
	list := s.List()
	require.Len(t, list, 2)
	require.NoError(t, open.Close())
	require.NoError(t, s.Delete(ids[2]))
	assert.ErrorIs(t, s.Delete(ids[2]), ErrNotFound)
	assert.Len(t, s.List(), 1)
	_, err := os.Stat(s.summaryPath(ids[2]))
	assert.ErrorIs(t, err, os.ErrNotExist)
	assert.Error(t, s.Delete("../etc"))
}

// holdEnv makes the test binary, re-executed, hold a thread's lock
// until its stdin closes (see TestLockHeldByAnotherProcess).
const holdEnv = "THREADSTORE_TEST_HOLD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(holdEnv); spec != "" {
		dataDir, id, _ := strings.Cut(spec, "|")
		s, err := Open(dataDir, "/home/u/src/my app", nil)
		if err == nil {
			var w *Writer
			if w, _, err = s.OpenWriter(id); err == nil {
				_ = w.Message(provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock("from the other process")}}, Display{})
				fmt.Println("locked")
				_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
				os.Exit(0)
			}
		}
		fmt.Println("error:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func TestLockHeldByAnotherProcess(t *testing.T) {
	dataDir := t.TempDir()
	s, err := Open(dataDir, "/home/u/src/my app", nil)
	require.NoError(t, err)
	w, err := s.Create(Header{ID: threadA})
	require.NoError(t, err)
	require.NoError(t, w.Close())

	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), holdEnv+"="+dataDir+"|"+threadA)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "locked\n", line)

	// The other process writes: this one can list and read, not write
	// or delete.
	_, _, err = s.OpenWriter(threadA)
	assert.ErrorIs(t, err, ErrLocked)
	assert.ErrorIs(t, s.Delete(threadA), ErrLocked)
	got, err := s.Load(threadA)
	require.NoError(t, err)
	assert.Equal(t, "from the other process", got.Messages[0].Content[0].Text)
	assert.Equal(t, 1, s.List()[0].Messages)

	// Killed, it leaves no lock behind.
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	stdin.Close()
	w, _, err = s.OpenWriter(threadA)
	require.NoError(t, err)
	w.Close()
}

func TestFilesArePrivate(t *testing.T) {
	s, _ := openStore(t)
	w, err := s.Create(Header{ID: threadA})
	require.NoError(t, err)
	w.Close()
	for _, p := range []string{s.Path(), s.logPath(threadA), s.summaryPath(threadA)} {
		info, err := os.Stat(p)
		require.NoError(t, err)
		assert.Zero(t, info.Mode().Perm()&0o077, "%s: %v", filepath.Base(p), info.Mode())
	}
}

func TestValidID(t *testing.T) {
	for _, id := range []string{"a", "0193a1b2-0000-7000-8000-000000000001", "A_b-9", strings.Repeat("x", maxIDLength)} {
		assert.True(t, validID(id), id)
	}
	for _, id := range []string{"", "-a", "_a", "a/b", "../x", "a.b", "a b", "é", strings.Repeat("x", maxIDLength+1)} {
		assert.False(t, validID(id), id)
	}
}

// A closed Writer's thread can be deleted and reopened at once, even
// while another descriptor of its log is still open somewhere: a process
// being started holds a copy of every descriptor between its fork and
// its exec (here a dup stands for that copy). Before the explicit unlock
// the copy kept the lock, and :Magenta delete-thread said the thread was
// open in another Neovim (seen in a CI run with commands starting in
// parallel).
func TestClosedWriterLeavesNoLockBehind(t *testing.T) {
	s, _ := openStore(t)
	const id = "0193a1b2-0000-7000-8000-000000000021"
	w, err := s.Create(Header{ID: id})
	require.NoError(t, err)
	copyFD, err := unix.Dup(int(w.f.Fd()))
	require.NoError(t, err)
	defer unix.Close(copyFD)
	require.NoError(t, w.Close())
	w, _, err = s.OpenWriter(id)
	require.NoError(t, err, "reopened")
	copy2, err := unix.Dup(int(w.f.Fd()))
	require.NoError(t, err)
	defer unix.Close(copy2)
	require.NoError(t, w.Close())
	require.NoError(t, s.Delete(id), "deleted")
}
