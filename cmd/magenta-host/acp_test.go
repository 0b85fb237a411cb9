package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/proctest"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// acpClient is the client side of the tests: it notes when each message
// chunk arrives and declines everything else.
type acpClient struct {
	mu     sync.Mutex
	chunks []string
	first  chan time.Time // the first chunk of a prompt's reply; capacity 1
	allow  bool           // answer permission requests yes
}

func (c *acpClient) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	if m := n.Update.AgentMessageChunk; m != nil && m.Content.Text != nil {
		c.mu.Lock()
		c.chunks = append(c.chunks, m.Content.Text.Text)
		c.mu.Unlock()
		select {
		case c.first <- time.Now():
		default:
		}
	}
	return nil
}

func (c *acpClient) RequestPermission(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.allow {
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: "yes", Outcome: "selected"}}}, nil
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
}

var errACPTestClient = errors.New("not offered by the test client")

func (c *acpClient) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, errACPTestClient
}

func (c *acpClient) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, errACPTestClient
}

func (c *acpClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errACPTestClient
}

func (c *acpClient) KillTerminalCommand(context.Context, sdk.KillTerminalCommandRequest) (sdk.KillTerminalCommandResponse, error) {
	return sdk.KillTerminalCommandResponse{}, errACPTestClient
}

func (c *acpClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errACPTestClient
}

func (c *acpClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errACPTestClient
}

func (c *acpClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errACPTestClient
}

// startACP starts the built binary as an ACP agent against srv, in a
// workspace of its own, and connects the SDK's client side to it.
func startACP(tb testing.TB, bin string, srv *providertest.Server) (*sdk.ClientSideConnection, *acpClient, string) {
	conn, c, work, _ := startACPCmd(tb, bin, srv)
	return conn, c, work
}

// startACPCmd is startACP, with the agent's process and its stdin.
func startACPCmd(tb testing.TB, bin string, srv *providertest.Server) (*sdk.ClientSideConnection, *acpClient, string, func() *os.ProcessState) {
	tb.Helper()
	dir, work := tb.TempDir(), tb.TempDir()
	config := filepath.Join(dir, "config.json")
	opts := fmt.Sprintf(`{"profiles": [{"name": "wire", "provider": "anthropic", "model": "claude-test", "baseUrl": %q, "apiKeyEnvVar": "MAGENTA_E2E_KEY"}],
	  "shell": {"logRoot": %q}, "sandbox": {"enabled": false}}`, srv.URL, filepath.Join(dir, "logs"))
	require.NoError(tb, os.WriteFile(config, []byte(opts), 0o600))
	cmd := exec.Command(bin, "acp", "--config", config, "--log", filepath.Join(dir, "acp.log"))
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "MAGENTA_E2E_KEY=test-key", "HOME="+dir, "XDG_DATA_HOME="+filepath.Join(dir, "data"))
	stdin, err := cmd.StdinPipe()
	require.NoError(tb, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(tb, err)
	require.NoError(tb, cmd.Start())
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	// leave closes the client's end: the agent stops everything and
	// exits.
	var once sync.Once
	leave := func() *os.ProcessState {
		once.Do(func() {
			_ = stdin.Close()
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
				<-exited
				tb.Error("the agent did not exit when its client went away")
			}
		})
		return cmd.ProcessState
	}
	tb.Cleanup(func() { leave() })
	c := &acpClient{first: make(chan time.Time, 1)}
	conn := sdk.NewClientSideConnection(c, stdin, stdout)
	conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	_, err = conn.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	require.NoError(tb, err)
	return conn, c, work, leave
}

// The built binary as an ACP agent: a session and a streamed reply.
func TestACPBinary(t *testing.T) {
	bin := nvimtest.HostBinary(t)
	srv := providertest.NewServer(t)
	conn, c, work := startACP(t, bin, srv)
	ctx := context.Background()
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: work, McpServers: []sdk.McpServer{}})
	require.NoError(t, err)
	done := make(chan sdk.StopReason, 1)
	go func() {
		resp, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hello")}})
		assert.NoError(t, err)
		done <- resp.StopReason
	}()
	call := srv.Next(t)
	assert.Equal(t, []string{"hello"}, call.Messages[0].Texts())
	call.Text("Hello ")
	call.Text("there.")
	call.Stop("end_turn")
	select {
	case reason := <-done:
		assert.Equal(t, sdk.StopReasonEndTurn, reason)
	case <-time.After(20 * time.Second):
		t.Fatal("no answer to the prompt")
	}
	c.mu.Lock()
	assert.Equal(t, []string{"Hello ", "there."}, c.chunks, "every chunk arrives before the prompt's answer")
	c.mu.Unlock()
}

// BenchmarkACPFirstUpdate is the agent's overhead from the provider's
// first text byte (the fake sends it) to the client's first
// agent_message_chunk, through the provider process, the thread and the
// protocol.
func BenchmarkACPFirstUpdate(b *testing.B) {
	bin := nvimtest.HostBinary(b)
	srv := providertest.NewServer(b)
	conn, c, work := startACP(b, bin, srv)
	ctx := context.Background()
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: work, McpServers: []sdk.McpServer{}})
	require.NoError(b, err)
	var total time.Duration
	b.ResetTimer()
	for range b.N {
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("go")}})
		}()
		call := srv.Next(b)
		sent := time.Now()
		call.Text("first")
		total += (<-c.first).Sub(sent)
		call.Stop("end_turn")
		<-done
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-first-update")
}

// A client that disappears mid-prompt, while a command runs: the agent
// exits and nothing it started is left running.
func TestACPClientGoneMidPrompt(t *testing.T) {
	bin := nvimtest.HostBinary(t)
	srv := providertest.NewServer(t)
	conn, c, work, leave := startACPCmd(t, bin, srv)
	c.allow = true
	ctx := context.Background()
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: work, McpServers: []sdk.McpServer{}})
	require.NoError(t, err)
	go func() {
		_, _ = conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("wait")}})
	}()
	call := srv.Next(t)
	call.ToolUse("t1", "bash_command", map[string]string{"command": "sleep 7902"})
	call.Stop("tool_use")
	require.True(t, waitUntil(10*time.Second, func() bool { return proctest.CommandRunning("sleep", "7902") }), "the command never ran")
	st := leave()
	require.NotNil(t, st)
	assert.False(t, proctest.CommandRunning("sleep", "7902"), "the command outlived the agent")
}
