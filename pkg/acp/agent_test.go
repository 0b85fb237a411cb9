package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/headless"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// client is the test's ACP client (behind the SDK's client side): it
// records every update and answers permission requests with answer.
// With fs it serves fs/read_text_file and fs/write_text_file as an
// editor would: buffers hold unsaved text (a write to a path with a
// buffer stays there, unsaved), other paths are the disk's.
type client struct {
	mu      sync.Mutex
	updates []sdk.SessionNotification
	asked   []sdk.RequestPermissionRequest
	answer  string // an option id; "" cancels
	fs      bool
	buffers map[string]string
	reads   []string // paths read through the client
	writes  []string // paths written through it
	// onUpdate, when set, is told of every update (under mu).
	onUpdate func(sdk.SessionNotification)
}

func (c *client) RequestPermission(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = append(c.asked, p)
	if c.answer == "" {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: sdk.PermissionOptionId(c.answer), Outcome: "selected"}}}, nil
}

func (c *client) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n)
	if c.onUpdate != nil {
		c.onUpdate(n)
	}
	return nil
}

var errNotOffered = errors.New("not offered by this client")

func (c *client) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.fs {
		return sdk.ReadTextFileResponse{}, errNotOffered
	}
	c.reads = append(c.reads, p.Path)
	if text, ok := c.buffers[p.Path]; ok {
		return sdk.ReadTextFileResponse{Content: text}, nil
	}
	data, err := os.ReadFile(p.Path)
	return sdk.ReadTextFileResponse{Content: string(data)}, err
}

func (c *client) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.fs {
		return sdk.WriteTextFileResponse{}, errNotOffered
	}
	c.writes = append(c.writes, p.Path)
	if _, ok := c.buffers[p.Path]; ok {
		c.buffers[p.Path] = p.Content
		return sdk.WriteTextFileResponse{}, nil
	}
	return sdk.WriteTextFileResponse{}, os.WriteFile(p.Path, []byte(p.Content), 0o644)
}

func (c *client) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errNotOffered
}

func (c *client) KillTerminalCommand(context.Context, sdk.KillTerminalCommandRequest) (sdk.KillTerminalCommandResponse, error) {
	return sdk.KillTerminalCommandResponse{}, errNotOffered
}

func (c *client) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errNotOffered
}

func (c *client) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errNotOffered
}

func (c *client) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errNotOffered
}

// kinds lists the updates received since the last call, by kind
// ("message:text", "thought:text", "tool_call:title",
// "tool_call_update:status", "plan").
func (c *client) kinds() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.kindsLocked()
	c.updates = nil
	return out
}

// kindsLocked is kinds under c.mu, keeping the updates.
func (c *client) kindsLocked() []string {
	var out []string
	for _, n := range c.updates {
		u := n.Update
		switch {
		case u.AgentMessageChunk != nil:
			out = append(out, "message:"+u.AgentMessageChunk.Content.Text.Text)
		case u.AgentThoughtChunk != nil:
			out = append(out, "thought:"+u.AgentThoughtChunk.Content.Text.Text)
		case u.ToolCall != nil:
			out = append(out, "tool_call:"+u.ToolCall.Title)
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil:
			out = append(out, "tool_call_update:"+string(*u.ToolCallUpdate.Status))
		case u.Plan != nil:
			out = append(out, "plan")
		}
	}
	return out
}

// start serves an agent on pipes and connects the SDK's client side to
// it, through initialize.
func start(t *testing.T, fake *providertest.Fake) (*sdk.ClientSideConnection, *client, string) {
	t.Helper()
	work := t.TempDir()
	conn, c, _ := startIn(t, fake, work, t.TempDir(), false)
	return conn, c, work
}

// startIn serves an agent whose data directory is data (threads saved
// when persist); stop ends it (also at the test's end).
func startIn(t *testing.T, fake *providertest.Fake, work, data string, persist bool) (*sdk.ClientSideConnection, *client, func()) {
	t.Helper()
	return startWith(t, fake, data, persist, &client{answer: optionYes})
}

// startWith is startIn with the test's client c (its fs offered in
// initialize when c.fs).
func startWith(t testing.TB, fake provider.Provider, data string, persist bool, c *client) (*sdk.ClientSideConnection, *client, func()) {
	t.Helper()
	return startConfig(t, func(config.Profile) (provider.Provider, error) { return fake, nil }, data, fmt.Sprintf(`{"profiles": [{"name": "fake", "provider": "anthropic", "model": "m", "apiKeyEnvVar": "K"}],
	  "sandbox": {"enabled": false}, "threads": {"persist": %v}, "shell": {"logRoot": %q}}`, persist, filepath.Join(t.TempDir(), "logs")), c)
}

// startConfig serves an agent with the config file's text and providers
// from newProvider.
func startConfig(t testing.TB, newProvider func(config.Profile) (provider.Provider, error), data, cfg string, c *client) (*sdk.ClientSideConnection, *client, func()) {
	t.Helper()
	opts, problems := headless.DecodeConfig([]byte(cfg))
	require.Empty(t, problems)
	toAgent, fromClient := io.Pipe()
	toClient, fromAgent := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	env := map[string]string{"K": "k", "XDG_DATA_HOME": data}
	go func() {
		defer close(done)
		_ = Serve(ctx, toAgent, fromAgent, Deps{
			Options:     opts,
			NewProvider: newProvider,
			Getenv:      func(k string) string { return env[k] },
		})
	}()
	// stop is the client going away: its end of the pipes closes, and
	// the agent must stop everything and return on its own.
	var once sync.Once
	stop := func() {
		once.Do(func() {
			_ = fromClient.Close()
			_ = fromAgent.Close()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Error("the agent did not stop when its client went away")
			}
			cancel()
		})
	}
	t.Cleanup(stop)
	conn := sdk.NewClientSideConnection(c, fromClient, toClient)
	conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	init, err := conn.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapability{ReadTextFile: c.fs, WriteTextFile: c.fs}}})
	require.NoError(t, err)
	assert.Equal(t, sdk.ProtocolVersion(sdk.ProtocolVersionNumber), init.ProtocolVersion)
	assert.True(t, init.AgentCapabilities.LoadSession)
	return conn, c, stop
}

type answer struct {
	resp sdk.PromptResponse
	err  error
}

// A prompt whose tool call needs permission, granted and then denied;
// the updates arrive before the prompt's answer; cancel ends a turn.
func TestAgentPromptPermissionAndCancel(t *testing.T) {
	fake := providertest.New()
	conn, c, work := start(t, fake)
	ctx := context.Background()
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: work, McpServers: []sdk.McpServer{}})
	require.NoError(t, err)
	prompt := func(s string) chan answer {
		ch := make(chan answer, 1)
		go func() {
			r, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock(s)}})
			ch <- answer{r, err}
		}()
		return ch
	}
	await := func(ch chan answer) answer {
		select {
		case a := <-ch:
			return a
		case <-time.After(20 * time.Second):
			t.Fatal("no answer to the prompt")
			return answer{}
		}
	}

	// Granted.
	ch := prompt("make a")
	call := fake.Next(t)
	assert.Equal(t, "make a", call.LastUserText())
	call.Thinking("Touching.", "sig")
	call.ToolUse("t1", "bash_command", map[string]string{"command": "touch a.txt"})
	call.Stop(provider.StopToolUse)
	fake.Next(t).Reply("Made it.")
	a := await(ch)
	require.NoError(t, a.err)
	assert.Equal(t, sdk.StopReasonEndTurn, a.resp.StopReason)
	assert.FileExists(t, filepath.Join(work, "a.txt"))
	assert.Equal(t, []string{"thought:Touching.", "tool_call:bash_command", "tool_call_update:completed", "message:Made it."}, c.kinds())
	c.mu.Lock()
	require.Len(t, c.asked, 1)
	assert.Contains(t, *c.asked[0].ToolCall.Title, "touch a.txt")
	assert.Equal(t, sdk.ToolCallId("t1"), c.asked[0].ToolCall.ToolCallId)
	c.answer = optionNo
	c.mu.Unlock()

	// Denied: the model reads the no.
	ch = prompt("make b")
	call = fake.Next(t)
	call.ToolUse("t2", "bash_command", map[string]string{"command": "touch b.txt"})
	call.Stop(provider.StopToolUse)
	call = fake.Next(t)
	assert.Contains(t, call.Results()["t2"].Result[0].Text, "declined")
	call.Reply("I may not.")
	a = await(ch)
	require.NoError(t, a.err)
	assert.NoFileExists(t, filepath.Join(work, "b.txt"))
	assert.Equal(t, []string{"tool_call:bash_command", "tool_call_update:failed", "message:I may not."}, c.kinds())

	// The todo list becomes the session's plan.
	ch = prompt("plan it")
	call = fake.Next(t)
	call.ToolUse("t3", "todo_write", map[string]any{"todos": []map[string]string{{"content": "read", "status": "done"}, {"content": "write", "status": "in_progress"}}})
	call.Stop(provider.StopToolUse)
	fake.Next(t).Reply("Planned.")
	require.NoError(t, await(ch).err)
	c.mu.Lock()
	var plan *sdk.SessionUpdatePlan
	for _, n := range c.updates {
		if n.Update.Plan != nil {
			plan = n.Update.Plan
		}
	}
	c.mu.Unlock()
	require.NotNil(t, plan)
	require.Len(t, plan.Entries, 2)
	assert.Equal(t, sdk.PlanEntryStatusCompleted, plan.Entries[0].Status)
	assert.Equal(t, sdk.PlanEntryStatusInProgress, plan.Entries[1].Status)
	assert.Equal(t, []string{"tool_call:todo_write", "plan", "tool_call_update:completed", "message:Planned."}, c.kinds())

	// Cancelled while the reply streams.
	ch = prompt("go on")
	call = fake.Next(t)
	call.Text("Working")
	require.NoError(t, conn.Cancel(ctx, sdk.CancelNotification{SessionId: sess.SessionId}))
	a = await(ch)
	require.NoError(t, a.err)
	assert.Equal(t, sdk.StopReasonCancelled, a.resp.StopReason)
	assert.True(t, strings.HasPrefix(strings.Join(c.kinds(), ","), "message:Working"))
}

// Bad input: an unknown session, an empty prompt, a workspace other than
// the agent's; and a second prompt while one runs, which supersedes it.
func TestAgentRefusesBadPrompts(t *testing.T) {
	fake := providertest.New()
	conn, _, work := start(t, fake)
	ctx := context.Background()
	_, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: "nope", Prompt: []sdk.ContentBlock{sdk.TextBlock("hi")}})
	assert.Error(t, err)
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: work, McpServers: []sdk.McpServer{}})
	require.NoError(t, err)
	_, err = conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("  ")}})
	assert.Error(t, err)
	// A prompt sent while one runs supersedes it (the SDK cancels the
	// running one): the first is cancelled and its request ends, then
	// the second runs. (It used to be refused while the first was being
	// cancelled anyway; when the first's abort won the race, the second
	// ran instead: a test that expected the refusal hung.)
	type answer struct {
		resp sdk.PromptResponse
		err  error
	}
	first := make(chan answer, 1)
	go func() {
		r, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("first")}})
		first <- answer{r, err}
	}()
	call := fake.Next(t)
	assert.Equal(t, "first", call.LastUserText())
	second := make(chan answer, 1)
	go func() {
		r, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("second")}})
		second <- answer{r, err}
	}()
	a := <-first
	require.NoError(t, a.err)
	assert.Equal(t, sdk.StopReasonCancelled, a.resp.StopReason)
	<-call.Ended()
	call = fake.Next(t)
	// The cancelled prompt stays in the conversation, as the client
	// shows it; the new one follows it.
	assert.Equal(t, "firstsecond", call.LastUserText())
	call.Reply("done")
	a = <-second
	require.NoError(t, a.err)
	assert.Equal(t, sdk.StopReasonEndTurn, a.resp.StopReason)
	_, err = conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{}})
	assert.ErrorContains(t, err, "this agent works in")
}

// A session saved by one agent is loaded by the next (a client
// reopening its conversation): its history is replayed as updates, and
// the next prompt carries the whole conversation.
func TestAgentLoadsSavedSession(t *testing.T) {
	fake := providertest.New()
	work, data := t.TempDir(), t.TempDir()
	conn, _, stop := startIn(t, fake, work, data, true)
	ctx := context.Background()
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: work, McpServers: []sdk.McpServer{}})
	require.NoError(t, err)
	ch := make(chan error, 1)
	go func() {
		_, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("remember kiwi")}})
		ch <- err
	}()
	fake.Next(t).Reply("Remembered.")
	require.NoError(t, <-ch)
	stop()

	conn, c, _ := startIn(t, fake, work, data, true)
	_, err = conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: sess.SessionId, Cwd: work, McpServers: []sdk.McpServer{}})
	require.NoError(t, err)
	c.mu.Lock()
	var replayed []string
	for _, n := range c.updates {
		switch u := n.Update; {
		case u.UserMessageChunk != nil:
			replayed = append(replayed, "user:"+u.UserMessageChunk.Content.Text.Text)
		case u.AgentMessageChunk != nil:
			replayed = append(replayed, "agent:"+u.AgentMessageChunk.Content.Text.Text)
		}
	}
	c.updates = nil
	c.mu.Unlock()
	assert.Equal(t, []string{"user:remember kiwi", "agent:Remembered."}, replayed)
	go func() {
		_, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("which fruit?")}})
		ch <- err
	}()
	call := fake.Next(t)
	assert.Equal(t, "remember kiwi", call.FirstUserText())
	assert.Equal(t, "which fruit?", call.LastUserText())
	call.Reply("Kiwi.")
	require.NoError(t, <-ch)
	_, err = conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: "no-such-thread", Cwd: work, McpServers: []sdk.McpServer{}})
	assert.Error(t, err)
}

// Malformed JSON-RPC and unknown methods are answered with errors, and
// the agent goes on serving.
func TestAgentAnswersBadJSONRPC(t *testing.T) {
	toAgent, fromClient := io.Pipe()
	toClient, fromAgent := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = Serve(ctx, toAgent, fromAgent, Deps{Getenv: func(string) string { return "" }})
	}()
	defer func() {
		cancel()
		_ = fromClient.Close()
		_ = fromAgent.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the agent did not stop")
		}
	}()
	answers := make(chan string)
	go func() {
		lines := bufio.NewScanner(toClient)
		for lines.Scan() {
			answers <- lines.Text()
		}
		close(answers)
	}()
	send := func(s string) map[string]any {
		t.Helper()
		go func() { _, _ = io.WriteString(fromClient, s+"\n") }()
		var line string
		select {
		case l, ok := <-answers:
			require.True(t, ok, "no answer to %s", s)
			line = l
		case <-time.After(10 * time.Second):
			t.Fatalf("no answer to %s", s)
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		return m
	}
	resp := send(`{"jsonrpc":"2.0","id":1,"method":"no/such/method","params":{}}`)
	require.Contains(t, resp, "error")
	assert.EqualValues(t, -32601, resp["error"].(map[string]any)["code"])
	resp = send(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":7}}`)
	require.Contains(t, resp, "error", "a malformed request is refused")
	resp = send(`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":1}}`)
	require.Contains(t, resp, "result", "the agent still serves")
	// Not JSON, not JSON-RPC, a response to nothing: dropped, and the
	// next request is answered.
	for _, junk := range []string{`{"jsonrpc":`, `not json at all`, `[1,2,3]`, `{"jsonrpc":"2.0"}`, `{"jsonrpc":"2.0","id":99,"result":{}}`} {
		_, err := io.WriteString(fromClient, junk+"\n")
		require.NoError(t, err)
	}
	resp = send(`{"jsonrpc":"2.0","id":4,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`)
	assert.EqualValues(t, 4, resp["id"])
	require.Contains(t, resp, "error", "no profile: a clear error, not a crash")
	assert.Contains(t, fmt.Sprint(resp["error"]), "no profile")
}
