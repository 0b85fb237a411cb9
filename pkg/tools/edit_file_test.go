package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localfs"
	"github.com/magenta-nvim/magenta/pkg/capabilities/memfs"
)

func runFileTool(fs capabilities.FileIO, name, input string) Result {
	env := &capabilities.Environment{Cwd: "/ws", Files: fs}
	return Builtin(Config{}).Run(context.Background(), name, Call{ID: "tu", ThreadID: "th", Input: json.RawMessage(input), Env: env})
}

func TestEditFile(t *testing.T) {
	fs := memfs.New()
	fs.Put("/ws/a.go", []byte("package a\r\n\r\nfunc f() {}\r\nfunc f() {}\r\n"))

	res := runFileTool(fs, "edit_file", `{"path":"a.go","old_string":"package a\n","new_string":"package b\n"}`)
	require.False(t, res.IsError, res.Text)
	assert.Equal(t, "Edited /ws/a.go (1 replacement).", res.Text)
	assert.Equal(t, "package b\r\n\r\nfunc f() {}\r\nfunc f() {}\r\n", string(fs.Files()["/ws/a.go"]), "CRLF kept")
	assert.Contains(t, res.Diff, "-package a")
	assert.Contains(t, res.Diff, "+package b")
	assert.Equal(t, &Location{Path: "/ws/a.go", Line: 1}, res.Location)
	assert.Equal(t, "a.go +1 -1", res.Summary)

	res = runFileTool(fs, "edit_file", `{"path":"a.go","old_string":"func f() {}","new_string":"func g() {}"}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "was not changed")
	assert.Contains(t, res.Text, "matches 2 places (lines 3, 4)")

	res = runFileTool(fs, "edit_file", `{"path":"a.go","old_string":"func f() {}","new_string":"func g() {}","replace_all":true}`)
	assert.Equal(t, "Edited /ws/a.go (2 replacements).", res.Text)

	res = runFileTool(fs, "edit_file", `{"path":"a.go","old_string":"func  h() {}","new_string":"x"}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "not found")

	res = runFileTool(fs, "edit_file", `{"path":"nope.go","old_string":"a","new_string":"b"}`)
	assert.Contains(t, res.Text, "does not exist; create it with write_file")
}

func TestWriteFile(t *testing.T) {
	fs := memfs.New()
	fs.Put("/ws/keep.txt", []byte("old\n"))
	res := runFileTool(fs, "write_file", `{"path":"new/dir/x.txt","content":"hello\nworld\n"}`)
	require.False(t, res.IsError, res.Text)
	assert.Equal(t, "Created /ws/new/dir/x.txt (2 lines).", res.Text)
	assert.Equal(t, "hello\nworld\n", string(fs.Files()["/ws/new/dir/x.txt"]))

	res = runFileTool(fs, "write_file", `{"path":"keep.txt","content":"new\n"}`)
	assert.Equal(t, "Wrote /ws/keep.txt (1 line).", res.Text)
	assert.Contains(t, res.Diff, "-old")
	assert.Contains(t, res.Diff, "+new")
}

// All tool calls of one reply start at once: two edit_file calls on one
// file must both land (each applied to the other's result), on the disk
// as through any FileIO.
func TestConcurrentEditsOfOneFileBothLand(t *testing.T) {
	dir := t.TempDir()
	env := &capabilities.Environment{Cwd: dir, Files: localfs.New()}
	reg := Builtin(Config{})
	path := filepath.Join(dir, "f.txt")
	for round := range 50 {
		require.NoError(t, os.WriteFile(path, []byte("alpha\nbeta\n"), 0o644))
		var wg sync.WaitGroup
		results := make([]Result, 2)
		for i, input := range []string{
			`{"path":"f.txt","old_string":"alpha","new_string":"ALPHA"}`,
			`{"path":"f.txt","old_string":"beta","new_string":"BETA"}`,
		} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = reg.Run(context.Background(), "edit_file", Call{ID: "tu", Input: json.RawMessage(input), Env: env})
			}()
		}
		wg.Wait()
		for _, res := range results {
			require.False(t, res.IsError, res.Text)
		}
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, "ALPHA\nBETA\n", string(got), "round %d: an edit was lost", round)
	}
}

// Results say what did not happen: a declined write was not written, a
// declined edit not changed, a file over the cap is refused before it is
// read.
func TestFileToolResultsSayWhatDidNotHappen(t *testing.T) {
	denied := &capabilities.DeniedError{What: "/ws/a.txt", Reason: "the user declined"}
	res := fileOpError(opWrite, "/ws/a.txt", denied)
	assert.Equal(t, "/ws/a.txt was not written: the user declined.", res.Text)
	assert.True(t, res.IsError)
	res = fileOpError(opEdit, "/ws/a.txt", denied)
	assert.Equal(t, "/ws/a.txt was not changed: the user declined.", res.Text)
	res = fileOpError(opWrite, "/ws/a.txt", errors.New("disk full"))
	assert.Equal(t, "write /ws/a.txt: disk full", res.Text)

	fs := memfs.New()
	fs.Put("/ws/big.txt", make([]byte, FileChangeMaxBytes+1))
	res = runFileTool(fs, "edit_file", `{"path":"big.txt","old_string":"a","new_string":"b"}`)
	assert.True(t, res.IsError)
	assert.Equal(t, "/ws/big.txt was not changed: it is 10485761 bytes, more than the 10 MB the file tools handle; use bash_command (sed, head, tail) for it", res.Text)
	res = runFileTool(fs, "write_file", `{"path":"big.txt","content":"small"}`)
	assert.Contains(t, res.Text, "/ws/big.txt was not written: it is 10485761 bytes, more than the 10 MB")
	assert.Len(t, fs.Files()["/ws/big.txt"], FileChangeMaxBytes+1, "left as it was")
	assert.Contains(t, EditFile().Spec().Description, "Files larger than 10 MB are refused", "the description's number is the cap")
}

// :help magenta states the cap the code uses.
func TestHelpStatesTheFileChangeCap(t *testing.T) {
	help, err := os.ReadFile(filepath.Join("..", "..", "doc", "magenta.txt"))
	require.NoError(t, err)
	assert.Contains(t, string(help), fmt.Sprintf("Files larger than %d MB are neither edited nor replaced", FileChangeMaxBytes>>20))
}
