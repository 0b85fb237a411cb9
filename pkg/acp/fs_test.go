package acp

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// session opens a session in work on conn.
func newSession(t testing.TB, conn *sdk.ClientSideConnection, work string) sdk.SessionId {
	t.Helper()
	sess, err := conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: work, McpServers: []sdk.McpServer{}})
	require.NoError(t, err)
	return sess.SessionId
}

// promptAsync sends a prompt; its answer arrives on the channel.
func promptAsync(conn *sdk.ClientSideConnection, sid sdk.SessionId, text string) chan answer {
	ch := make(chan answer, 1)
	go func() {
		r, err := conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
		ch <- answer{r, err}
	}()
	return ch
}

func awaitAnswer(t testing.TB, ch chan answer) answer {
	t.Helper()
	select {
	case a := <-ch:
		return a
	case <-time.After(20 * time.Second):
		t.Fatal("no answer to the prompt")
		return answer{}
	}
}

// toolTurn runs one prompt whose reply calls one tool and returns what
// the model read of its result.
func toolTurn(t *testing.T, fake *providertest.Fake, conn *sdk.ClientSideConnection, sid sdk.SessionId, name string, input any) provider.Block {
	t.Helper()
	ch := promptAsync(conn, sid, "use "+name)
	call := fake.Next(t)
	call.ToolUse("t-"+name, name, input)
	call.Stop(provider.StopToolUse)
	call = fake.Next(t)
	res := call.Results()["t-"+name]
	call.Reply("ok")
	require.NoError(t, awaitAnswer(t, ch).err)
	return res
}

func resultText(b provider.Block) string {
	if len(b.Result) == 0 {
		return ""
	}
	return b.Result[0].Text
}

// resolved is a temporary directory with every link resolved (the agent
// works in the resolved workspace).
func resolved(t *testing.T) string {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	return dir
}

// A client that offers its fs methods is the truth: get_file reads its
// unsaved text, edit_file writes through fs/write_text_file (the disk
// keeps the saved text until the editor saves), and the next read sees
// the edit.
func TestAgentFilesThroughClient(t *testing.T) {
	fake := providertest.New()
	work := resolved(t)
	path := filepath.Join(work, "a.txt")
	require.NoError(t, os.WriteFile(path, []byte("saved line\n"), 0o644))
	c := &client{answer: optionYes, fs: true, buffers: map[string]string{path: "unsaved line\n"}}
	conn, _, _ := startWith(t, fake, t.TempDir(), false, c)
	sid := newSession(t, conn, work)

	res := toolTurn(t, fake, conn, sid, "get_file", map[string]string{"path": "a.txt"})
	assert.Contains(t, resultText(res), "unsaved line")
	assert.NotContains(t, resultText(res), "saved line\n1")

	res = toolTurn(t, fake, conn, sid, "edit_file", map[string]string{"path": "a.txt", "old_string": "unsaved", "new_string": "edited"})
	assert.False(t, res.IsError, resultText(res))
	c.mu.Lock()
	assert.Equal(t, "edited line\n", c.buffers[path])
	assert.Contains(t, c.writes, path)
	c.mu.Unlock()
	disk, _ := os.ReadFile(path)
	assert.Equal(t, "saved line\n", string(disk), "the editor has not saved")

	res = toolTurn(t, fake, conn, sid, "get_file", map[string]string{"path": "a.txt"})
	assert.Contains(t, resultText(res), "edited line")
}

// A symlink in the workspace to a file outside is judged by the guard
// (it asks: a read outside the workspace) and is never read through the
// client: granted, the disk's file is read, not the client's buffer of it.
func TestAgentLinkNotReadThroughClient(t *testing.T) {
	fake := providertest.New()
	work, outside := resolved(t), resolved(t)
	secret := filepath.Join(outside, "secret.txt")
	require.NoError(t, os.WriteFile(secret, []byte("disk text\n"), 0o644))
	require.NoError(t, os.Symlink(secret, filepath.Join(work, "link.txt")))
	c := &client{answer: optionNo, fs: true, buffers: map[string]string{secret: "client text\n"}}
	conn, _, _ := startWith(t, fake, t.TempDir(), false, c)
	sid := newSession(t, conn, work)

	res := toolTurn(t, fake, conn, sid, "get_file", map[string]string{"path": "link.txt"})
	assert.True(t, res.IsError)
	assert.Contains(t, resultText(res), "declined")
	c.mu.Lock()
	require.Len(t, c.asked, 1, "the guard asked")
	assert.Contains(t, *c.asked[0].ToolCall.Title, secret)
	c.answer = optionYes
	c.mu.Unlock()

	res = toolTurn(t, fake, conn, sid, "get_file", map[string]string{"path": "link.txt"})
	assert.Contains(t, resultText(res), "disk text")
	c.mu.Lock()
	assert.Empty(t, c.reads, "nothing behind a link is read through the client")
	c.mu.Unlock()
}

// A client without fs methods: files are the disk's.
func TestAgentFilesWithoutClientFS(t *testing.T) {
	fake := providertest.New()
	work := resolved(t)
	path := filepath.Join(work, "a.txt")
	require.NoError(t, os.WriteFile(path, []byte("saved line\n"), 0o644))
	c := &client{answer: optionYes, buffers: map[string]string{path: "unsaved line\n"}}
	conn, _, _ := startWith(t, fake, t.TempDir(), false, c)
	sid := newSession(t, conn, work)

	res := toolTurn(t, fake, conn, sid, "get_file", map[string]string{"path": "a.txt"})
	assert.Contains(t, resultText(res), "saved line")
	res = toolTurn(t, fake, conn, sid, "edit_file", map[string]string{"path": "a.txt", "old_string": "saved", "new_string": "edited"})
	assert.False(t, res.IsError, resultText(res))
	disk, _ := os.ReadFile(path)
	assert.Equal(t, "edited line\n", string(disk))
	c.mu.Lock()
	assert.Empty(t, c.reads)
	assert.Empty(t, c.writes)
	c.mu.Unlock()
}
