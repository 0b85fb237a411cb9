package tools

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
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
