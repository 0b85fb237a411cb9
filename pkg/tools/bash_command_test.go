package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

type fakeShell struct {
	res  *capabilities.ExecResult
	err  error
	got  capabilities.ExecOptions
	cmd  string
	emit []string
	// limit, when set, is reported through OnStart, as a shell reports
	// the timeout it applies.
	limit time.Duration
}

func (f *fakeShell) Execute(_ context.Context, cmd string, o capabilities.ExecOptions) (*capabilities.ExecResult, error) {
	f.cmd, f.got = cmd, o
	if f.limit > 0 {
		o.OnStart(f.limit)
	}
	for i := range f.emit {
		var tail []capabilities.OutputLine
		for _, l := range f.emit[max(0, i+1-capabilities.ShellTailLines) : i+1] {
			tail = append(tail, capabilities.OutputLine{Text: l})
		}
		o.OnTail(tail, i+1)
	}
	return f.res, f.err
}

func lines(prefix string, n int) []capabilities.OutputLine {
	out := make([]capabilities.OutputLine, n)
	for i := range out {
		out[i] = capabilities.OutputLine{Text: fmt.Sprintf("%s%d", prefix, i+1)}
	}
	return out
}

func runBashTool(t *testing.T, sh *fakeShell, input string) Result {
	t.Helper()
	env := &capabilities.Environment{Cwd: "/ws", Shell: sh}
	return Default().Run(context.Background(), "bash_command", Call{ID: "tu_9", ThreadID: "th", Input: json.RawMessage(input), Env: env, Live: &Live{}})
}

func TestBashCommandPassesOptions(t *testing.T) {
	sh := &fakeShell{res: &capabilities.ExecResult{TotalLines: 1, Head: lines("x", 1), Duration: time.Second}, emit: []string{"a", "b"}}
	res := runBashTool(t, sh, `{"command":"make","timeout":5000,"workdir":"sub","description":"build"}`)
	assert.False(t, res.IsError)
	assert.Equal(t, "make", sh.cmd)
	assert.Equal(t, "/ws/sub", sh.got.Cwd)
	assert.Equal(t, 5*time.Second, sh.got.Timeout)
	assert.Equal(t, "th", sh.got.ThreadID)
	assert.Equal(t, "tu_9", sh.got.RequestID)
	assert.Equal(t, "x1\nexit code 0 after 1s", res.Text)
	assert.Equal(t, "exit code 0 after 1s", res.Summary)
}

func TestBashCommandFormatting(t *testing.T) {
	tests := []struct {
		name string
		res  capabilities.ExecResult
		want []string
		not  []string
	}{
		{"all of 30 lines", capabilities.ExecResult{TotalLines: 30, Head: lines("h", 10), Tail: lines("t", 20), LogPath: "/l"},
			[]string{"h1\n", "t20\nexit code 0"}, []string{"omitted", "Full output"}},
		{"head, omitted, tail, log", capabilities.ExecResult{TotalLines: 1000, Head: lines("h", 10), Tail: lines("t", 20), LogPath: "/tmp/log"},
			[]string{"h10\n... (970 lines omitted) ...\nt1\n", "Full output (1000 lines): /tmp/log\n"}, nil},
		{"binary", capabilities.ExecResult{Binary: true, BinaryBytes: 10000, LogPath: "/l"},
			[]string{"(binary output, 10000 bytes, not shown and not logged)\nexit code 0"}, []string{"Full output", "/l"}},
		{"binary and many lines", capabilities.ExecResult{Binary: true, BinaryBytes: 10, TotalLines: 40, Head: lines("h", 10), Tail: lines("t", 20), LogPath: "/l"},
			[]string{"(binary output, 10 bytes, not shown and not logged; the text lines follow)\nh1\n", "Full output (40 lines): /l\n"}, nil},
		{"capped log", capabilities.ExecResult{TotalLines: 1000, Head: lines("h", 10), Tail: lines("t", 20), LogPath: "/l", LogDroppedBytes: 1234},
			[]string{"Output (1000 lines): /l (the log is capped: 1234 bytes dropped from its middle)\n"}, []string{"Full output"}},
		{"incomplete log", capabilities.ExecResult{TotalLines: 1000, Head: lines("h", 10), Tail: lines("t", 20), LogPath: "/l", LogError: "write /l: no space left on device"},
			[]string{"Output (1000 lines): /l (the log is incomplete: write /l: no space left on device)\n"}, []string{"Full output"}},
		{"incomplete short log", capabilities.ExecResult{TotalLines: 1, Head: lines("h", 1), LogPath: "/l", LogError: "disk full"},
			[]string{"h1\n(the log /l is incomplete: disk full)\n"}, nil},
		{"no output", capabilities.ExecResult{ExitCode: 3}, []string{"(no output)\nexit code 3"}, nil},
		{"timeout", capabilities.ExecResult{TimedOut: true, Signal: "SIGTERM", ExitCode: -1, Duration: 2 * time.Second}, []string{"timed out after 2s and was terminated (SIGTERM)"}, nil},
		{"terminated", capabilities.ExecResult{Cancelled: true, Signal: "SIGTERM", ExitCode: -1}, []string{"terminated by the user"}, nil},
		{"signal", capabilities.ExecResult{Signal: "SIGKILL", ExitCode: -1}, []string{"killed by SIGKILL"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, _ := FormatBashResult(&tt.res)
			for _, w := range tt.want {
				assert.Contains(t, text, w)
			}
			for _, n := range tt.not {
				assert.NotContains(t, text, n)
			}
		})
	}
}

func TestBashCommandBudget(t *testing.T) {
	long := strings.Repeat("x", 5000)
	head := make([]capabilities.OutputLine, 10)
	tail := make([]capabilities.OutputLine, 20)
	for i := range head {
		head[i].Text = long
	}
	for i := range tail {
		tail[i].Text = long
	}
	text, _ := FormatBashResult(&capabilities.ExecResult{TotalLines: 5000, Head: head, Tail: tail, LogPath: "/l"})
	assert.LessOrEqual(t, len([]rune(text)), BashCharBudget+500)
	assert.Contains(t, text, "chars cut")
}

func TestBashCommandDeclinedAndErrors(t *testing.T) {
	res := runBashTool(t, &fakeShell{err: &capabilities.DeniedError{What: "rm x", Reason: "the user declined to run it"}}, `{"command":"rm x"}`)
	assert.True(t, res.IsError)
	assert.Equal(t, "The command was not run: the user declined to run it.", res.Text)

	res = runBashTool(t, &fakeShell{}, `{"command":"  "}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "must not be empty")

	res = Default().Run(context.Background(), "bash_command", Call{Input: json.RawMessage(`{"command":"ls"}`), Env: &capabilities.Environment{}})
	assert.Contains(t, res.Text, "no shell")
}

func TestBashCommandDescriptionUsesTheConstants(t *testing.T) {
	tool, ok := Default().Tool("bash_command")
	require.True(t, ok)
	d := tool.Spec().Description
	for _, want := range []string{"2m0s", "10m0s", "200ms", "30 lines or fewer", "first 10 lines", "last 20 lines", "1000 characters", "10000 characters"} {
		assert.Contains(t, d, want)
	}
	sum, detail := tool.(Describer).Describe([]byte(`{"command":"rm -rf build\necho done","description":"clean"}`))
	assert.Equal(t, "clean", sum)
	assert.Equal(t, "$ rm -rf build …", detail)
}

func TestBashCommandDescriptionQuotesTheConfiguredMaximum(t *testing.T) {
	d := BashCommand(90 * time.Second).Spec().Description
	assert.Contains(t, d, "up to 1m30s")
	assert.NotContains(t, d, "10m0s")
	tool, ok := Builtin(Config{MaxShellTimeout: 20 * time.Minute}).Tool("bash_command")
	require.True(t, ok)
	assert.Contains(t, tool.Spec().Description, "up to 20m0s")
}

// TestBashCommandTimerShowsTheEffectiveLimit: a requested timeout above
// the maximum is shown capped, and then as the shell reports it.
func TestBashCommandTimerShowsTheEffectiveLimit(t *testing.T) {
	tool := BashCommand(time.Minute)
	after := func(sh *fakeShell) LiveSnapshot {
		live := &Live{}
		env := &capabilities.Environment{Cwd: "/ws", Shell: sh}
		tool.Run(context.Background(), Call{ID: "1", Input: json.RawMessage(`{"command":"x","timeout":3600000}`), Env: env, Live: live})
		return live.Snapshot()
	}
	// Nothing before the command starts (waiting for approval is not
	// running, and counts against no limit)...
	s := after(&fakeShell{res: &capabilities.ExecResult{}})
	assert.Zero(t, s.Limit)
	assert.True(t, s.Started.IsZero())
	// ...then the shell's word, from the start.
	s = after(&fakeShell{res: &capabilities.ExecResult{}, limit: 45 * time.Second})
	assert.Equal(t, 45*time.Second, s.Limit)
	assert.False(t, s.Started.IsZero())
}

func TestLive(t *testing.T) {
	var l *Live
	l.SetTail([]capabilities.OutputLine{{Text: "ignored"}}, 1) // nil-safe
	l = &Live{}
	var tail []capabilities.OutputLine
	for i := 0; i < 8; i++ {
		tail = append(tail, capabilities.OutputLine{Text: fmt.Sprint(i)})
	}
	l.SetTail(tail, 108)
	s := l.Snapshot()
	assert.Equal(t, []string{"3", "4", "5", "6", "7"}, s.Lines, "the last LiveLines lines")
	assert.Equal(t, 108, s.Total)
	seq := s.Seq
	l.SetTail(tail, 108)
	assert.Equal(t, seq, l.Snapshot().Seq, "nothing new: no redraw")
}

func TestBashCommandInteractiveOption(t *testing.T) {
	for _, tc := range []struct {
		mode  string
		asked bool
		want  bool
	}{
		{InteractiveModel, true, true}, {InteractiveModel, false, false}, {"", true, true},
		{InteractiveAlways, false, true}, {InteractiveNever, true, false},
	} {
		sh := &fakeShell{res: &capabilities.ExecResult{}}
		env := &capabilities.Environment{Cwd: "/ws", Shell: sh}
		reg, err := NewRegistry(BashCommandWith(time.Minute, tc.mode))
		require.NoError(t, err)
		input := `{"command":"npm init"}`
		if tc.asked {
			input = `{"command":"npm init","interactive":true}`
		}
		reg.Run(context.Background(), "bash_command", Call{ID: "tu", Input: json.RawMessage(input), Env: env, Live: &Live{}})
		assert.Equal(t, tc.want, sh.got.Interactive, "mode %q asked %v", tc.mode, tc.asked)
		assert.NotNil(t, sh.got.OnTerminal)
	}
}

func TestBashCommandInteractiveDescription(t *testing.T) {
	d := BashCommandWith(time.Minute, InteractiveModel).Spec().Description
	assert.Contains(t, d, "`interactive`: set it to true only")
	assert.Contains(t, d, "(up to 1m0s)")
	assert.Contains(t, d, "within "+capabilities.TerminalInputGrace.String()+" of their last keystroke")
	assert.Contains(t, d, capabilities.TerminalPromptSilence.String())
	assert.Contains(t, d, fmt.Sprintf("%d×%d", capabilities.TerminalDefaultRows, capabilities.TerminalDefaultCols))
	assert.Contains(t, d, "Standard input is empty")
	assert.Contains(t, BashCommandWith(time.Minute, InteractiveNever).Spec().Description, "turned off by the user")
	always := BashCommandWith(time.Minute, InteractiveAlways).Spec().Description
	assert.Contains(t, always, "Every command runs in a terminal")
	assert.NotContains(t, always, "Standard input is empty")
}

func TestBashCommandInteractiveResultNotes(t *testing.T) {
	sh := &fakeShell{res: &capabilities.ExecResult{Interactive: true, NotInteractive: "no pseudo-terminal: out of ptys", ExitCode: 0}}
	res := runBashTool(t, sh, `{"command":"npm init","interactive":true}`)
	assert.Contains(t, res.Text, "It ran without a terminal (not interactive: no pseudo-terminal: out of ptys)")
	assert.Contains(t, res.Summary, "not interactive")

	sh = &fakeShell{res: &capabilities.ExecResult{Interactive: true, WaitingForInput: true, TimedOut: true, ExitCode: -1, Signal: "SIGTERM"}}
	res = runBashTool(t, sh, `{"command":"npm init","interactive":true}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "ended while it seemed to wait for input")
	assert.Contains(t, res.Text, "-y")
	assert.Contains(t, res.Text, `printf 'y\n' | command`)
	assert.Contains(t, res.Summary, "was waiting for input")
}

func TestLiveTerminal(t *testing.T) {
	var l Live
	l.EndTerminal("exited 0")
	assert.Equal(t, "", l.Snapshot().TerminalExit, "no terminal, no exit line")
	var nilLive *Live
	nilLive.SetTerminal(nil)
	nilLive.EndTerminal("x")
}
