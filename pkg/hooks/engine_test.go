package hooks

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

// A PreToolUse hook that exits 2 blocks bash_command: the model reads
// the hook's stderr as the call's result, the command never runs, and
// the chat draws why.
func TestPreToolUseExit2BlocksTheCall(t *testing.T) {
	r := newRig(t, hooksJSON("PreToolUse", "bash_command", `cat > pre-input.json; echo "touching is not allowed" >&2; exit 2`, 0))
	r.app.Send("make a marker")
	next := r.bash(t, "touch marker")
	text, isErr := result(t, next, "b1")
	assert.True(t, isErr)
	assert.Contains(t, text, "A PreToolUse hook blocked this call; the tool did not run.")
	assert.Contains(t, text, "touching is not allowed")
	assert.False(t, r.exists("marker"), "the command did not run")
	next.Reply("ok, I won't")
	r.screen.waitFor(t, "blocked by a PreToolUse hook", "blocked the call: touching is not allowed", "ok, I won't")

	var in map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.read(t, "pre-input.json")), &in))
	assert.Equal(t, "PreToolUse", in["hook_event_name"])
	assert.Equal(t, "bash_command", in["tool_name"])
	assert.Equal(t, map[string]any{"command": "touch marker"}, in["tool_input"])
	assert.Equal(t, "b1", in["tool_use_id"])
	assert.Equal(t, r.ws, in["cwd"])
	assert.NotEmpty(t, in["session_id"])
	assert.Equal(t, "", in["transcript_path"])
}

// JSON answers block too: permissionDecision "deny" and the older
// top-level "decision": "block"; a hook for another tool is not run.
func TestJSONDecisionsBlock(t *testing.T) {
	for name, out := range map[string]string{
		"deny":  `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "policy says no"}}`,
		"block": `{"decision": "block", "reason": "policy says no"}`,
	} {
		t.Run(name, func(t *testing.T) {
			option, err := json.Marshal(map[string]any{"PreToolUse": []any{
				map[string]any{"matcher": "bash_command", "hooks": []any{map[string]any{"type": "command", "command": "echo '" + out + "'"}}},
				map[string]any{"matcher": "edit_file", "hooks": []any{map[string]any{"type": "command", "command": "touch wrong-hook-ran"}}},
			}})
			require.NoError(t, err)
			r := newRig(t, string(option))
			r.app.Send("go")
			next := r.bash(t, "touch marker")
			text, isErr := result(t, next, "b1")
			assert.True(t, isErr)
			assert.Contains(t, text, "policy says no")
			assert.False(t, r.exists("marker"))
			assert.False(t, r.exists("wrong-hook-ran"), "the matcher chose the hook")
			next.Reply("done")
			r.screen.waitFor(t, "done")
		})
	}
}

// A PostToolUse hook gets the call and its result, and runs after it;
// its exit-2 stderr is fed back to the model with the result.
func TestPostToolUseSeesTheResult(t *testing.T) {
	option := `{"PostToolUse": [{"matcher": "bash_command", "hooks": [
		{"type": "command", "command": "cat >> post.jsonl; echo >> post.jsonl"},
		{"type": "command", "command": "echo 'lint: 2 warnings' >&2; exit 2"}
	]}]}`
	r := newRig(t, option)
	r.app.Send("go")
	next := r.bash(t, "echo hello > made.txt; echo printed")
	text, isErr := result(t, next, "b1")
	assert.False(t, isErr)
	assert.Contains(t, text, "printed")
	assert.Contains(t, text, "PostToolUse hook feedback (echo 'lint: 2 warnings' >&2; exit 2):\nlint: 2 warnings")
	assert.True(t, r.exists("made.txt"))
	var in struct {
		Event    string          `json:"hook_event_name"`
		Input    json.RawMessage `json:"tool_input"`
		Response toolResponse    `json:"tool_response"`
	}
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(r.read(t, "post.jsonl"))), &in))
	assert.Equal(t, "PostToolUse", in.Event)
	assert.JSONEq(t, `{"command": "echo hello > made.txt; echo printed"}`, string(in.Input))
	assert.Contains(t, in.Response.Text, "printed")
	next.Reply("done")
	r.screen.waitFor(t, "told the model: lint: 2 warnings", "done")
}

// A hook that fails (exit 1), hangs past its timeout or floods its
// output is shown to the user, and the call runs all the same; the
// turn is not held longer than the timeout.
func TestFailingHooksAreShownAndTheCallRuns(t *testing.T) {
	option := `{"PreToolUse": [{"matcher": "bash_command", "hooks": [
		{"type": "command", "command": "echo 'cannot reach the server' >&2; exit 1"},
		{"type": "command", "command": "sleep 300", "timeout": 0.5},
		{"type": "command", "command": "head -c 10485760 /dev/zero | tr '\\0' x"}
	]}]}`
	r := newRig(t, option)
	r.app.Send("go")
	start := time.Now()
	next := r.bash(t, "touch marker")
	assert.Less(t, time.Since(start), 15*time.Second)
	_, isErr := result(t, next, "b1")
	assert.False(t, isErr)
	assert.True(t, r.exists("marker"), "the call ran")
	next.Reply("done")
	r.screen.waitFor(t,
		"failed with exit status 1: cannot reach the server",
		"timed out after 500ms and was stopped",
		"it wrote 10.0 MB on stdout; magenta read the first 64 KiB",
		"done")
}

// A hook answering "ask" asks the user in the call; NO blocks it.
func TestAskAsksTheUser(t *testing.T) {
	r := newRig(t, hooksJSON("PreToolUse", "bash_command", `echo '{"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "this deletes things"}}'`, 0))
	r.app.Send("go")
	c := r.fake.Next(t)
	c.ToolUse("b1", "bash_command", map[string]string{"command": "touch marker"})
	c.Stop(provider.StopToolUse)
	r.screen.waitFor(t, "a PreToolUse hook asks you to approve this call: echo")
	pending := r.broker.Pending("")
	require.Len(t, pending, 1)
	assert.Equal(t, "hook", pending[0].Kind)
	require.True(t, r.broker.Answer(pending[0].ID, approval.Deny))
	next := r.fake.Next(t)
	text, isErr := result(t, next, "b1")
	assert.True(t, isErr)
	assert.Contains(t, text, "the user said no")
	assert.False(t, r.exists("marker"))
	next.Reply("done")
	r.screen.waitFor(t, "done")
}

// UserPromptSubmit: a hook that exits 2 keeps the message from the
// model (the user is told why, the text goes back to the input); one
// that prints adds context the model gets with the message; the
// SessionStart hook's output goes with the thread's first message only.
func TestUserPromptSubmitBlocksAndAddsContext(t *testing.T) {
	option := `{
		"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "input=$(cat); case \"$input\" in *password*) echo 'no secrets in prompts' >&2; exit 2;; esac; echo \"branch: main\""}]}],
		"SessionStart": [{"hooks": [{"type": "command", "command": "cat > start.json; echo 'project rules: be brief'"}]}]
	}`
	r := newRig(t, option)
	r.app.Send("my password is hunter2")
	r.screen.waitFor(t, "your message was not sent: UserPromptSubmit hook", "no secrets in prompts", "It is back in the input.")
	r.screen.mu.Lock()
	assert.Equal(t, []string{"my password is hunter2"}, r.screen.restored)
	r.screen.mu.Unlock()

	r.app.Send("hello")
	first := r.fake.Next(t)
	wire := first.LastUserText()
	assert.NotContains(t, wire, "hunter2", "the refused message never reached the model")
	assert.Contains(t, wire, "SessionStart hook additional context (cat > start.json; echo 'project rules: be brief'):\nproject rules: be brief")
	assert.Contains(t, wire, "UserPromptSubmit hook additional context")
	assert.Contains(t, wire, "branch: main")
	assert.True(t, strings.HasSuffix(wire, "hello"), "the context comes before the message: %q", wire)
	var start map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.read(t, "start.json")), &start))
	assert.Equal(t, "SessionStart", start["hook_event_name"])
	assert.Equal(t, "startup", start["source"])
	assert.Equal(t, "m", start["model"])
	first.Reply("hi")
	r.screen.waitFor(t, "hi")

	r.app.Send("again")
	second := r.fake.Next(t)
	assert.NotContains(t, second.LastUserText(), "project rules", "SessionStart runs once per thread")
	assert.Contains(t, second.LastUserText(), "branch: main")
	second.Reply("ok")
	r.screen.waitFor(t, "ok")
}

// Messages sent while a turn runs go through the check too, together,
// when it ends.
func TestQueuedMessagesAreChecked(t *testing.T) {
	r := newRig(t, hooksJSON("UserPromptSubmit", "", `input=$(cat); case "$input" in *forbidden*) echo 'nope' >&2; exit 2;; esac`, 0))
	r.app.Send("first")
	c := r.fake.Next(t)
	r.app.Send("forbidden words")
	r.screen.waitFor(t, "forbidden words")
	c.Reply("answer")
	r.screen.waitFor(t, "your message was not sent", "nope")
	r.app.Send("fine words")
	next := r.fake.Next(t)
	assert.NotContains(t, next.LastUserText(), "forbidden")
	assert.Contains(t, next.LastUserText(), "fine words")
	next.Reply("ok")
}

// A Stop hook that exits 2 sends the agent back to work once: the model
// gets the reason as the next message; the next Stop input says
// stop_hook_active, and the hook lets it stop.
func TestStopHookContinuesOnce(t *testing.T) {
	hook := `input=$(cat); echo "$input" >> stops.jsonl; case "$input" in *'"stop_hook_active":true'*) echo '{"systemMessage": "letting it stop"}'; exit 0;; esac; echo 'run the tests first' >&2; exit 2`
	r := newRig(t, hooksJSON("Stop", "", hook, 0))
	r.app.Send("fix it")
	r.fake.Next(t).Reply("fixed")
	again := r.fake.Next(t)
	assert.Equal(t, "Stop hook feedback:\nrun the tests first", again.LastUserText())
	again.Reply("tests pass")
	r.screen.waitFor(t, "tests pass", "letting it stop")
	lines := strings.Split(strings.TrimSpace(r.read(t, "stops.jsonl")), "\n")
	require.Len(t, lines, 2)
	assert.Contains(t, lines[0], `"stop_hook_active":false`)
	assert.Contains(t, lines[1], `"stop_hook_active":true`)
	// It stopped: the next request is the user's next message.
	r.app.Send("thanks")
	assert.Equal(t, "thanks", r.fake.Next(t).LastUserText())
}

// :Magenta hooks lists every hook with its source and whether it runs,
// and notes a matcher written with Claude Code's tool names.
func TestList(t *testing.T) {
	hooks, ignored, err := ParseOption(json.RawMessage(`{"PreToolUse": [{"matcher": "Bash|edit_file", "hooks": [{"command": "x", "timeout": 2}]}], "PreCompact": []}`))
	require.NoError(t, err)
	l := New(Options{Setup: hooks, SetupIgnored: ignored}).List()
	require.Len(t, l.Hooks, 1)
	h := l.Hooks[0]
	assert.Equal(t, Listed{Event: "PreToolUse", Matcher: "Bash|edit_file", Command: "x", Timeout: 2, Source: SourceSetup, Active: true,
		Note: "matches no magenta tool by that name: Claude Code's Bash is bash_command here"}, h)
	assert.Equal(t, StateOff, l.Project.State)
	assert.Len(t, l.Ignored, 1)
}

// A UserPromptSubmit hook that hangs holds the message only until its
// timeout — or until the user aborts: the hook is stopped and the
// message goes back to the input, unsent.
func TestAbortStopsAPromptHook(t *testing.T) {
	r := newRig(t, hooksJSON("UserPromptSubmit", "", "sleep 300", 0))
	r.app.Send("wait for me")
	r.screen.waitFor(t, "checking your message (hooks, context files) before it goes")
	start := time.Now()
	r.app.Abort()
	r.screen.waitFor(t, "your message was not sent: you aborted it while hooks looked at it")
	assert.Less(t, time.Since(start), 10*time.Second)
	r.screen.mu.Lock()
	assert.Equal(t, []string{"wait for me"}, r.screen.restored)
	r.screen.mu.Unlock()
}
