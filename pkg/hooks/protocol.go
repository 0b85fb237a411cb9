package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// input is what a hook reads on its stdin: one JSON object, Claude
// Code's fields for the event. session_id is the thread's id; the
// transcript is magenta's own format, so transcript_path is "".
type input struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode"`
	HookEventName  Event           `json:"hook_event_name"`
	ToolName       string          `json:"tool_name,omitempty"`
	ToolInput      json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID      string          `json:"tool_use_id,omitempty"`
	ToolResponse   *toolResponse   `json:"tool_response,omitempty"`
	Prompt         string          `json:"prompt,omitempty"`
	StopHookActive *bool           `json:"stop_hook_active,omitempty"`
	Source         string          `json:"source,omitempty"`
	Model          string          `json:"model,omitempty"`
}

// toolResponse is a PostToolUse hook's tool_response: what the model
// gets back from the call.
type toolResponse struct {
	Text    string `json:"text"`
	IsError bool   `json:"is_error"`
}

// maxResponseText bounds the tool_response text written to a hook's
// stdin (a tool result is bounded already; this keeps the bound local).
const maxResponseText = 1 << 20

// output is the JSON a hook may print on stdout when it exits 0: the
// fields of Claude Code's protocol that magenta honours.
type output struct {
	Continue      *bool  `json:"continue"`
	StopReason    string `json:"stopReason"`
	SystemMessage string `json:"systemMessage"`
	Decision      string `json:"decision"`
	Reason        string `json:"reason"`
	Specific      *struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		AdditionalContext        string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// verdict is what one run of a hook said, read as Claude Code reads it.
// What it means depends on the event: see Engine's methods.
type verdict struct {
	hook Hook
	// block: exit 2, or a JSON decision "block" (or, before a tool call,
	// permissionDecision "deny"); reason is stderr or the JSON reason.
	block bool
	// ask: permissionDecision "ask" before a tool call.
	ask    bool
	reason string
	// context is for the model: additionalContext, or a prompt event's
	// plain stdout.
	context string
	// stop: "continue": false, with stopReason.
	stop       bool
	stopReason string
	// notes are for the user: a systemMessage, output cut, a failure.
	notes []string
	// failed: the hook did not give an answer (it could not run, timed
	// out, crashed, exited with another status, or printed JSON that
	// could not be read); the event goes on as if it had not run —
	// except a workspace PreToolUse hook left unverified: what it runs
	// changed since the user trusted it, so the gate it was trusted as
	// stays shut (the call is blocked) until the user answers again.
	failed     bool
	unverified bool
}

// read interprets a run for ev.
func read(ev Event, r run) verdict {
	v := verdict{hook: r.hook}
	fail := func(format string, args ...any) {
		v.failed = true
		v.notes = append(v.notes, fmt.Sprintf(format, args...))
	}
	for _, c := range []struct {
		name string
		c    *capture
	}{{"stdout", &r.stdout}, {"stderr", &r.stderr}} {
		if n := c.c.cut(); n > 0 {
			v.notes = append(v.notes, fmt.Sprintf("it wrote %s on %s; magenta read the first %s", size(c.c.total), c.name, size(MaxOutput)))
		}
	}
	stderr := clean(r.stderr.buf)
	switch {
	case r.err != nil:
		fail("could not run: %v", r.err)
	case r.cancelled:
		fail("was stopped: the turn was aborted")
	case r.timedOut:
		fail("timed out after %s and was stopped%s", r.hook.Timeout, tail(stderr))
	case r.signal != "":
		fail("was killed by %s%s", r.signal, tail(stderr))
	case r.exitCode == 2:
		v.block, v.reason = true, stderr
		if v.reason == "" {
			v.reason = "(the hook exited with status 2 and wrote no reason on stderr)"
		}
	case r.exitCode != 0:
		fail("failed with exit status %d%s", r.exitCode, tail(stderr))
	default:
		v.fromStdout(ev, r.stdout.buf, fail)
	}
	return v
}

// fromStdout reads a successful hook's stdout: Claude Code's JSON when
// it is a JSON object, else plain text (context for the prompt events,
// ignored for the others).
func (v *verdict) fromStdout(ev Event, stdout []byte, fail func(string, ...any)) {
	trimmed := bytes.TrimSpace(stdout)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		if ev == UserPromptSubmit || ev == SessionStart {
			v.context = clean(stdout)
		}
		return
	}
	var out output
	if err := json.Unmarshal(trimmed, &out); err != nil {
		fail("printed JSON magenta could not read (%s); it was ignored", describe(err))
		return
	}
	if out.SystemMessage != "" {
		v.notes = append(v.notes, clean([]byte(out.SystemMessage)))
	}
	if out.Continue != nil && !*out.Continue {
		v.stop, v.stopReason = true, clean([]byte(out.StopReason))
	}
	reason := out.Reason
	switch out.Decision {
	case "block":
		v.block = true
	case "", "approve", "allow":
	default:
		fail("printed the decision %q, which is not \"block\"; it was ignored", out.Decision)
	}
	if s := out.Specific; s != nil {
		v.context = s.AdditionalContext
		if ev == PreToolUse {
			switch s.PermissionDecision {
			case "deny":
				v.block, reason = true, firstOf(s.PermissionDecisionReason, reason)
			case "ask":
				v.ask, reason = true, firstOf(s.PermissionDecisionReason, reason)
			case "", "allow":
			default:
				fail("printed the permissionDecision %q (allow, deny or ask); it was ignored", s.PermissionDecision)
			}
		}
	}
	v.reason = clean([]byte(reason))
	v.context = clean([]byte(v.context))
	if (v.block || v.ask) && v.reason == "" {
		v.reason = "(the hook gave no reason)"
	}
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// clean is a hook's text as magenta passes it on: valid UTF-8, control
// characters but newlines and tabs removed (a hook must not move the
// user's terminal or hide text), trimmed.
func clean(b []byte) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if r == '\r' || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

// tail is ": " and the start of stderr, for a failure's note ("" when
// stderr is empty).
func tail(stderr string) string {
	if stderr == "" {
		return ""
	}
	return ": " + short(stderr, 300)
}

// short is s on one line, at most n bytes (on a rune boundary).
func short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// size is n bytes for people.
func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
