package acp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/proctest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// contentText joins a tool call update's text content.
func contentText(u *sdk.SessionToolCallUpdate) string {
	var parts []string
	for _, c := range u.Content {
		if c.Content != nil && c.Content.Content.Text != nil {
			parts = append(parts, c.Content.Content.Text.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// waitContent returns a channel closed when an update of tool call id
// arrives, while it still runs (no status), whose content has every one
// of want.
func waitContent(c *client, id string, want ...string) chan struct{} {
	seen := make(chan struct{})
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onUpdate = func(n sdk.SessionNotification) {
		u := n.Update.ToolCallUpdate
		if u == nil || string(u.ToolCallId) != id || u.Status != nil || seen == nil {
			return
		}
		text := contentText(u)
		for _, w := range want {
			if !strings.Contains(text, w) {
				return
			}
		}
		close(seen)
		seen = nil
	}
	return seen
}

func within(t *testing.T, ch chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(20 * time.Second):
		t.Fatalf("never: %s", what)
	}
}

// A command's output reaches the client while it runs, as the content
// of its tool call; the result replaces it at the end.
func TestAgentStreamsCommandOutput(t *testing.T) {
	fake := providertest.New()
	work := resolved(t)
	conn, c, _ := startWith(t, fake, t.TempDir(), false, &client{answer: optionYes})
	sid := newSession(t, conn, work)
	seen := waitContent(c, "t1", "live-one")

	ch := promptAsync(conn, sid, "run it")
	call := fake.Next(t)
	call.ToolUse("t1", "bash_command", map[string]string{"command": "echo live-one; while [ ! -e done.flag ]; do sleep 0.02; done; echo finished"})
	call.Stop(provider.StopToolUse)
	within(t, seen, "the command's output reached the client while it ran")
	require.NoError(t, touch(work, "done.flag"))
	call = fake.Next(t)
	assert.Contains(t, resultText(call.Results()["t1"]), "finished")
	call.Reply("Ran.")
	require.NoError(t, awaitAnswer(t, ch).err)

	c.mu.Lock()
	defer c.mu.Unlock()
	var live, final []string
	for _, n := range c.updates {
		if u := n.Update.ToolCallUpdate; u != nil && u.ToolCallId == "t1" {
			if u.Status == nil {
				live = append(live, contentText(u))
			} else if *u.Status == sdk.ToolCallStatusCompleted {
				final = append(final, contentText(u))
			}
		}
	}
	require.NotEmpty(t, live)
	assert.Contains(t, live[0], "```\nlive-one\n```")
	require.Len(t, final, 1)
	assert.Contains(t, final[0], "finished")
	kinds := c.kindsLocked()
	assert.Equal(t, "tool_call:bash_command", kinds[0])
	assert.Equal(t, "message:Ran.", kinds[len(kinds)-1])
}

// A sub-agent's tool calls and messages reach the client as the content
// of the spawn_subagents call that waits for it; its questions go to the
// parent's session.
func TestAgentShowsSubagentProgress(t *testing.T) {
	fake := providertest.New()
	work := resolved(t)
	conn, c, _ := startWith(t, fake, t.TempDir(), false, &client{answer: optionYes})
	sid := newSession(t, conn, work)
	seen := waitContent(c, "s1", "count the files please", "echo child-was-here", "✓ bash_command")

	ch := promptAsync(conn, sid, "delegate")
	call := fake.Next(t)
	call.ToolUse("s1", "spawn_subagents", map[string]any{"agents": []map[string]string{{"prompt": "count the files please"}}})
	call.Stop(provider.StopToolUse)
	child := fake.Next(t)
	assert.Equal(t, "count the files please", child.FirstUserText())
	child.Text("Counting.")
	child.ToolUse("c1", "bash_command", map[string]string{"command": "echo child-was-here"})
	child.Stop(provider.StopToolUse)
	child = fake.Next(t)
	within(t, seen, "the sub-agent's progress reached the client while it ran")
	child.ToolUse("c2", "yield_to_parent", map[string]string{"result": "3 files"})
	child.Stop(provider.StopToolUse)
	call = fake.Next(t)
	assert.Contains(t, resultText(call.Results()["s1"]), "3 files")
	call.Reply("Three.")
	require.NoError(t, awaitAnswer(t, ch).err)

	c.mu.Lock()
	defer c.mu.Unlock()
	for _, q := range c.asked {
		assert.Equal(t, sid, q.SessionId, "a sub-agent's question goes to its parent's session")
	}
	var progress string
	for _, n := range c.updates {
		assert.Equal(t, sid, n.SessionId)
		if u := n.Update.ToolCallUpdate; u != nil && u.ToolCallId == "s1" && u.Status == nil {
			progress = contentText(u)
		}
		if u := n.Update.ToolCall; u != nil {
			assert.NotEqual(t, sdk.ToolCallId("c1"), u.ToolCallId, "a sub-agent's calls are not the session's")
		}
	}
	assert.Contains(t, progress, "**sub-agent count the files please** (subagent)")
	assert.Contains(t, progress, "“Counting.”")
}

func touch(dir, name string) error {
	return os.WriteFile(filepath.Join(dir, name), nil, 0o644)
}

// Cancelled while a command runs: the command is stopped, its tool call
// ends failed, and the prompt answers cancelled.
func TestAgentCancelStopsCommand(t *testing.T) {
	fake := providertest.New()
	work := resolved(t)
	conn, c, _ := startWith(t, fake, t.TempDir(), false, &client{answer: optionYes})
	sid := newSession(t, conn, work)
	ch := promptAsync(conn, sid, "wait")
	call := fake.Next(t)
	call.ToolUse("t1", "bash_command", map[string]string{"command": "sleep 7904"})
	call.Stop(provider.StopToolUse)
	require.True(t, eventually(func() bool { return proctest.CommandRunning("sleep", "7904") }), "the command never ran")
	require.NoError(t, conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: sid}))
	a := awaitAnswer(t, ch)
	require.NoError(t, a.err)
	assert.Equal(t, sdk.StopReasonCancelled, a.resp.StopReason)
	assert.True(t, eventually(func() bool { return !proctest.CommandRunning("sleep", "7904") }), "the command outlived the cancel")
	kinds := c.kinds()
	assert.Equal(t, "tool_call_update:failed", kinds[len(kinds)-1], "the cut call is not left running: %v", kinds)
}

// A client that disappears mid-prompt, while a command runs: the agent
// returns, and nothing it started is left running.
func TestAgentClientGoneMidPrompt(t *testing.T) {
	fake := providertest.New()
	work := resolved(t)
	conn, _, leave := startWith(t, fake, t.TempDir(), false, &client{answer: optionYes})
	sid := newSession(t, conn, work)
	ch := promptAsync(conn, sid, "wait")
	call := fake.Next(t)
	call.ToolUse("t1", "bash_command", map[string]string{"command": "sleep 7905"})
	call.Stop(provider.StopToolUse)
	require.True(t, eventually(func() bool { return proctest.CommandRunning("sleep", "7905") }), "the command never ran")
	leave() // fails the test unless the agent returns
	assert.False(t, proctest.CommandRunning("sleep", "7905"), "the command outlived the agent")
	// The answer is an error (the connection went), or "cancelled" when
	// it was written before the client's end closed.
	if a := awaitAnswer(t, ch); a.err == nil {
		assert.Equal(t, sdk.StopReasonCancelled, a.resp.StopReason)
	}
}

// eventually polls cond until it holds, for at most 10 s.
func eventually(cond func() bool) bool {
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
	return true
}
