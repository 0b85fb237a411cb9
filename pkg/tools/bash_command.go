package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// What the model gets from bash_command, beyond the Shell's retention.
const (
	// BashLineChars cuts a line for the model (the log keeps more).
	BashLineChars = 1000
	// BashCharBudget caps the whole result.
	BashCharBudget = 10000
)

//go:embed bash_command.md
var bashCommandDescription string

// The description's line on `interactive`, by shell.interactive: the
// model's choice is explained, "never" says it is off, "always" needs
// no line (every command gets a terminal).
var (
	//go:embed bash_command_interactive.md
	interactiveModelNote string
	//go:embed bash_command_interactive_off.md
	interactiveNeverNote string
)

// BashCommandParams is the input of bash_command.
type BashCommandParams struct {
	Command     string `json:"command" jsonschema:"the command line to run with bash"`
	Timeout     int    `json:"timeout,omitempty" jsonschema:"timeout in milliseconds (optional)"`
	Workdir     string `json:"workdir,omitempty" jsonschema:"working directory, relative to the workspace root (optional)"`
	Description string `json:"description,omitempty" jsonschema:"a few words on what the command does, shown to the user"`
	Interactive bool   `json:"interactive,omitempty" jsonschema:"run it in a terminal the user can type into (prompts, REPLs); see the description"`
}

// Values of the shell.interactive option: who decides whether a command
// runs under a pseudo-terminal.
const (
	// InteractiveModel lets the model ask per call (the default).
	InteractiveModel = "model"
	// InteractiveAlways runs every command under a terminal.
	InteractiveAlways = "always"
	// InteractiveNever never does; the parameter is ignored.
	InteractiveNever = "never"
)

type bashCommand struct {
	Tool
}

// Name is the embedded tool's, without building its spec.
func (b *bashCommand) Name() string { return toolName(b.Tool) }

// BashCommand returns the bash_command tool; maxTimeout is the configured
// cap for per-call timeouts, quoted in the description; the model decides
// which commands are interactive.
func BashCommand(maxTimeout time.Duration) Tool {
	return BashCommandWith(maxTimeout, InteractiveModel)
}

// BashCommandWith is BashCommand with the shell.interactive option
// (InteractiveModel, InteractiveAlways or InteractiveNever; "" is
// InteractiveModel).
func BashCommandWith(maxTimeout time.Duration, interactive string) Tool {
	if interactive == "" {
		interactive = InteractiveModel
	}
	data := map[string]any{
		"Interactive":    interactive,
		"PromptSilence":  capabilities.TerminalPromptSilence.String(),
		"InputGrace":     capabilities.TerminalInputGrace.String(),
		"TermRows":       capabilities.TerminalDefaultRows,
		"TermCols":       capabilities.TerminalDefaultCols,
		"DefaultTimeout": capabilities.ShellDefaultTimeout.String(),
		"MaxTimeout":     maxTimeout.String(),
		"Grace":          capabilities.ShellTerminateGrace.String(),
		"AllLines":       capabilities.ShellHeadLines + capabilities.ShellTailLines,
		"HeadLines":      capabilities.ShellHeadLines,
		"TailLines":      capabilities.ShellTailLines,
		"LineChars":      BashLineChars,
		"CharBudget":     BashCharBudget,
	}
	note := map[string]string{InteractiveModel: interactiveModelNote, InteractiveNever: interactiveNeverNote}[interactive]
	if note != "" {
		filled, err := describe(strings.TrimSpace(note), data)
		if err != nil {
			panic(fmt.Sprintf("bash_command: %v", err)) // a mistake in the embedded text, caught by every test run
		}
		note = "\n" + filled
	}
	data["InteractiveNote"] = note
	data["StdinNote"] = stdinNote(interactive)
	run := func(ctx context.Context, call Call, p BashCommandParams) Result {
		return runBash(ctx, call, p, maxTimeout, interactive)
	}
	return &bashCommand{Tool: MustTyped("bash_command", bashCommandDescription, data, run)}
}

// stdinNote is the description's sentence on standard input, by
// shell.interactive.
func stdinNote(interactive string) string {
	switch interactive {
	case InteractiveAlways:
		return fmt.Sprintf("Every command runs in a terminal (%d×%d until the user resizes it) that the user can type into; prefer non-interactive flags anyway.",
			capabilities.TerminalDefaultRows, capabilities.TerminalDefaultCols)
	case InteractiveNever:
		return "Standard input is empty: commands cannot prompt, and pagers and editors are disabled."
	}
	return "Standard input is empty unless you set `interactive`: commands cannot prompt, and pagers and editors are disabled."
}

// Describe implements Describer: the description and the command line.
func (*bashCommand) Describe(input []byte) (summary, detail string) {
	var p BashCommandParams
	if json.Unmarshal(input, &p) != nil {
		return "", ""
	}
	summary = p.Description
	cmd := p.Command
	if i := strings.IndexByte(cmd, '\n'); i >= 0 {
		cmd = cmd[:i] + " …"
	}
	if summary == "" {
		summary = cutMiddle(cmd, 60)
	}
	return summary, "$ " + cmd
}

// runBash runs one call; maxTimeout caps the limit shown with the timer
// until the shell, once the command starts, reports the one it applies.
func runBash(ctx context.Context, call Call, p BashCommandParams, maxTimeout time.Duration, interactive string) Result {
	if strings.TrimSpace(p.Command) == "" {
		return Errorf("command must not be empty")
	}
	if call.Env == nil || call.Env.Shell == nil {
		return Errorf("this environment has no shell")
	}
	if p.Timeout < 0 {
		return Errorf("timeout must be a positive number of milliseconds")
	}
	workdir := call.Env.Cwd
	if p.Workdir != "" {
		workdir = p.Workdir
		if !filepath.IsAbs(workdir) {
			workdir = filepath.Join(call.Env.Cwd, workdir)
		}
	}
	res, err := call.Env.Shell.Execute(ctx, p.Command, capabilities.ExecOptions{
		ThreadID: call.ThreadID, RequestID: call.ID, Cwd: workdir,
		Timeout: time.Duration(p.Timeout) * time.Millisecond,
		OnTail:  call.Live.SetTail, // sampled: every line would cost the shell its fast path
		OnStart: call.Live.Started, // the timer and limit count from the start, not from the approval

		Interactive: wantsTerminal(p.Interactive, interactive),
		OnTerminal:  call.Live.SetTerminal,
	})
	if errors.Is(err, capabilities.ErrPermissionDenied) {
		var denied *capabilities.DeniedError
		reason := "the user declined to run it"
		if errors.As(err, &denied) {
			reason = denied.Reason
		}
		return Result{Text: "The command was not run: " + reason + ".", IsError: true, Summary: "not run: " + reason}
	}
	if err != nil {
		return Errorf("the command could not be run: " + err.Error())
	}
	text, status := FormatBashResult(res)
	text, status = confinementNote(res, text, status)
	text, status = terminalNote(res, text, status)
	call.Live.EndTerminal(terminalExit(res))
	return Result{Text: text, IsError: res.ExitCode != 0 || res.Signal != "", Summary: status, LogPath: res.LogPath}
}

// confinementNote tells the model, and shows the user, that a command
// ran in the sandbox and what the sandbox blocked.
func confinementNote(res *capabilities.ExecResult, text, status string) (string, string) {
	if !res.Confined {
		return text, status
	}
	status += " · confined"
	if res.Blocked != "" {
		text = "It ran in the sandbox, and " + res.Blocked + "; the user chose not to run it outside the sandbox (there, writes outside the workspace, secrets and the network are not allowed).\n" + text
		status += " · " + res.Blocked
	} else {
		text = "It ran in the sandbox (workspace writable but for .git; home directory hidden but for toolchains; network per sandbox.network).\n" + text
	}
	for _, d := range res.Disarmed {
		text = "Note: " + d + ".\n" + text
		status += " · disarmed a planted git repository"
	}
	return text, status
}

// wantsTerminal applies the shell.interactive option to the model's ask.
func wantsTerminal(asked bool, mode string) bool {
	switch mode {
	case InteractiveAlways:
		return true
	case InteractiveNever:
		return false
	}
	return asked
}

// terminalNote tells the model how an interactive command ran: without a
// terminal after all, or ended while it seemed to wait for input (so it
// learns to avoid the prompt next time).
func terminalNote(res *capabilities.ExecResult, text, status string) (string, string) {
	if res.NotInteractive != "" {
		text = "It ran without a terminal (not interactive: " + res.NotInteractive + "); its standard input was empty.\n" + text
		status += " · not interactive"
	}
	if res.WaitingForInput {
		text = "It was ended while it seemed to wait for input (silent, its screen ending in a prompt). Next time avoid the prompt: pass flags such as -y, --yes or --no-input, or give the answers through a pipe (printf 'y\\n' | command).\n" + text
		status += " · was waiting for input"
	}
	return text, status
}

// terminalExit is the line a terminal window shows when its command has
// ended: "exited 0", "killed by SIGTERM".
func terminalExit(res *capabilities.ExecResult) string {
	if res.Signal != "" {
		return "killed by " + res.Signal
	}
	return fmt.Sprintf("exited %d", res.ExitCode)
}

// FormatBashResult renders a result for the model, and a one-line status
// for the chat. It says what the log really holds: no "full output" for
// a log that holds no lines, and whether the log was capped or is
// incomplete.
func FormatBashResult(res *capabilities.ExecResult) (text, status string) {
	var b strings.Builder
	switch {
	case res.Binary && res.TotalLines == 0:
		fmt.Fprintf(&b, "(binary output, %d bytes, not shown and not logged)\n", res.BinaryBytes)
	case res.TotalLines == 0:
		b.WriteString("(no output)\n")
	default:
		if res.Binary {
			fmt.Fprintf(&b, "(binary output, %d bytes, not shown and not logged; the text lines follow)\n", res.BinaryBytes)
		}
		lines := make([]string, 0, len(res.Head)+len(res.Tail)+1)
		for _, l := range res.Head {
			lines = append(lines, l.Text)
		}
		if omitted := res.TotalLines - len(res.Head) - len(res.Tail); omitted > 0 {
			lines = append(lines, fmt.Sprintf("... (%d lines omitted) ...", omitted))
		}
		for _, l := range res.Tail {
			lines = append(lines, l.Text)
		}
		writeWithinBudget(&b, lines)
	}
	if res.TotalLines > capabilities.ShellHeadLines+capabilities.ShellTailLines {
		var notes []string
		if res.LogDroppedBytes > 0 {
			notes = append(notes, fmt.Sprintf("the log is capped: %d bytes dropped from its middle", res.LogDroppedBytes))
		}
		if res.LogError != "" {
			notes = append(notes, "the log is incomplete: "+res.LogError)
		}
		label := "Full output"
		if len(notes) > 0 {
			label = "Output"
		}
		fmt.Fprintf(&b, "%s (%d lines): %s", label, res.TotalLines, res.LogPath)
		if len(notes) > 0 {
			b.WriteString(" (" + strings.Join(notes, "; ") + ")")
		}
		b.WriteByte('\n')
	} else if res.LogError != "" {
		fmt.Fprintf(&b, "(the log %s is incomplete: %s)\n", res.LogPath, res.LogError)
	}
	dur := res.Duration.Round(time.Millisecond)
	switch {
	case res.Cancelled:
		status = fmt.Sprintf("terminated by the user after %s", dur)
	case res.TimedOut:
		status = fmt.Sprintf("timed out after %s and was terminated (%s)", dur, res.Signal)
	case res.Signal != "":
		status = fmt.Sprintf("killed by %s after %s", res.Signal, dur)
	default:
		status = fmt.Sprintf("exit code %d after %s", res.ExitCode, dur)
	}
	b.WriteString(status)
	return b.String(), status
}

// writeWithinBudget writes lines cut to BashLineChars, shrinking the cut
// further when the lines together would pass BashCharBudget.
func writeWithinBudget(b *strings.Builder, lines []string) {
	limit := BashLineChars
	if per := BashCharBudget / max(len(lines), 1); per < limit {
		limit = max(per, 40)
	}
	for _, l := range lines {
		b.WriteString(cutMiddle(l, limit))
		b.WriteByte('\n')
	}
}

// cutMiddle shortens s to about n characters by cutting out its middle.
func cutMiddle(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	keep := (n - 20) / 2
	return string(r[:keep]) + fmt.Sprintf(" … [%d chars cut] … ", len(r)-2*keep) + string(r[len(r)-keep:])
}
