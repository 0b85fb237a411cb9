package hooks

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseOption(t *testing.T) {
	hooks, ignored, err := ParseOption(json.RawMessage(`{
		"PreToolUse": [{"matcher": "bash_command|edit_file", "hooks": [{"type": "command", "command": "check.sh", "timeout": 5}]}],
		"Stop": [{"hooks": [{"command": "make test"}]}],
		"Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}]
	}`))
	require.NoError(t, err)
	require.Len(t, hooks, 2)
	assert.Equal(t, PreToolUse, hooks[0].Event)
	assert.Equal(t, 5*time.Second, hooks[0].Timeout)
	assert.Equal(t, SourceSetup, hooks[0].Source)
	assert.True(t, hooks[0].Matches("edit_file"))
	assert.False(t, hooks[0].Matches("edit_files"), "a plain matcher names tools exactly")
	assert.Equal(t, Stop, hooks[1].Event)
	assert.Equal(t, DefaultTimeout, hooks[1].Timeout)
	require.Len(t, ignored, 1)
	assert.Contains(t, ignored[0], "hooks.Notification: magenta does not run Notification hooks")
}

func TestParseErrorsNameTheOption(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`[]`, "hooks: must be an object of events"},
		{`{"PreToolUse": {}}`, "hooks.PreToolUse: must be a list"},
		{`{"PreToolUse": [{"matcher": 3, "hooks": []}]}`, "hooks.PreToolUse[1]: matcher: must be a string"},
		{`{"PreToolUse": [{"matcher": "x"}]}`, "hooks.PreToolUse[1].hooks: is required"},
		{`{"PreToolUse": [{"hooks": [{"type": "command"}]}]}`, "hooks.PreToolUse[1].hooks[1].command: must be a non-empty string"},
		{`{"PreToolUse": [{"hooks": [{"type": "prompt", "command": "x"}]}]}`, `hooks.PreToolUse[1].hooks[1].type: "prompt" is not "command"`},
		{`{"PreToolUse": [{"hooks": [{"command": "x", "timeout": -1}]}]}`, "hooks.PreToolUse[1].hooks[1].timeout: must be a positive number"},
		{`{"PreToolUse": [{"hooks": [{"command": "x", "timeout": "5"}]}]}`, "hooks.PreToolUse[1].hooks[1]: timeout: must be a number"},
		{`{"PreToolUse": [{"matcher": "(?=x)", "hooks": [{"command": "x"}]}]}`, "hooks.PreToolUse[1].matcher: \"(?=x)\" is not a regular expression magenta can read"},
	} {
		_, _, err := ParseOption(json.RawMessage(c.in))
		if assert.Error(t, err, c.in) {
			assert.Contains(t, err.Error(), c.want, c.in)
		}
	}
}

// A settings file written for Claude Code: other keys, events and
// handler types magenta does not run are left out and named; what it
// runs is kept.
func TestParseFileKeepsWhatMagentaRuns(t *testing.T) {
	hooks, ignored, err := ParseFile([]byte(`{
		"permissions": {"allow": ["Bash(npm test)"]},
		"hooks": {
			"PostToolUse": [{"matcher": "edit_file", "hooks": [
				{"type": "command", "command": "fmt.sh", "async": true},
				{"type": "http", "url": "http://localhost:1"}
			]}],
			"SubagentStop": [{"hooks": [{"type": "command", "command": "x"}]}]
		}
	}`), SettingsFile)
	require.NoError(t, err)
	require.Len(t, hooks, 1)
	assert.Equal(t, "fmt.sh", hooks[0].Command)
	assert.Equal(t, SettingsFile, hooks[0].Source)
	assert.Len(t, ignored, 2)
	assert.Contains(t, strings.Join(ignored, "\n"), `magenta runs only "command" hooks, not "http"`)

	none, _, err := ParseFile([]byte(`{"permissions": {}}`), SettingsFile)
	require.NoError(t, err)
	assert.Empty(t, none)
	_, _, err = ParseFile([]byte(`{"hooks": `), SettingsFile)
	assert.ErrorContains(t, err, "not a JSON object")
	_, _, err = ParseFile([]byte(`null`), SettingsFile)
	assert.ErrorContains(t, err, "not a JSON object")
}

func TestMatchers(t *testing.T) {
	for _, c := range []struct {
		matcher string
		yes, no []string
	}{
		{"", []string{"bash_command", "mcp__x__y"}, nil},
		{"*", []string{"bash_command"}, nil},
		{"bash_command", []string{"bash_command"}, []string{"bash_command2", "xbash_command"}},
		{"edit_file|write_file", []string{"edit_file", "write_file"}, []string{"edit"}},
		{"mcp__github__.*", []string{"mcp__github__create_issue"}, []string{"mcp__gitlab__x"}},
		{"^get_", []string{"get_file"}, []string{"forget_file"}},
		{"file", []string{"file"}, []string{"get_file"}},
		{"fi.e", []string{"get_file"}, []string{"bash_command"}},
	} {
		m, err := compileMatcher(c.matcher)
		require.NoError(t, err, c.matcher)
		for _, n := range c.yes {
			assert.True(t, m.matches(n), "%q matches %q", c.matcher, n)
		}
		for _, n := range c.no {
			assert.False(t, m.matches(n), "%q does not match %q", c.matcher, n)
		}
	}
	h := Hook{Event: SessionStart, match: mustMatcher(t, "resume")}
	assert.True(t, h.Matches("resume"))
	assert.False(t, h.Matches("startup"))
	assert.True(t, Hook{Event: Stop, match: mustMatcher(t, "nothing")}.Matches(""), "Stop ignores the matcher")
}

func mustMatcher(t *testing.T, s string) matcher {
	m, err := compileMatcher(s)
	require.NoError(t, err)
	return m
}

// The settings parser takes what a cloned repository holds: it must
// never panic, and whatever it accepts is a usable hook.
func FuzzParseFile(f *testing.F) {
	for _, s := range []string{
		`{"hooks": {"PreToolUse": [{"matcher": "bash_command", "hooks": [{"type": "command", "command": "x", "timeout": 1}]}]}}`,
		`{"hooks": {"Stop": [{"hooks": [{"command": "y"}]}], "Nope": []}}`,
		`{"hooks": {"PostToolUse": [{"matcher": "a(b", "hooks": []}]}}`,
		`{"hooks": null}`, `[]`, `{"hooks": {"PreToolUse": [{"hooks": [{"timeout": 1e308, "command": "z"}]}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		hooks, _, err := ParseFile(data, SettingsFile)
		if err != nil {
			return
		}
		for _, h := range hooks {
			if strings.TrimSpace(h.Command) == "" || h.Timeout <= 0 || h.Timeout > MaxTimeout {
				t.Fatalf("accepted an unusable hook: %+v", h)
			}
			if _, ok := known(string(h.Event)); !ok {
				t.Fatalf("accepted an unknown event: %+v", h)
			}
			h.Matches("bash_command")
		}
	})
}
