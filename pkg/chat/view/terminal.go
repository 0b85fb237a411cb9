package view

// An interactive command's block (bash_command with a pseudo-terminal):
// while it runs it shows the last lines of its emulated screen instead of
// the output lines, says when the command seems to wait for input, and
// binds KeyTerminal to opening its terminal window.

// ScreenLines is how many of an interactive command's last screen lines
// its block shows while it runs.
const ScreenLines = 8

// TerminalState says whether a tool call has a terminal, and whether its
// window is open.
type TerminalState int

const (
	// TerminalNone: not an interactive command (or no terminal yet).
	TerminalNone TerminalState = iota
	// TerminalAvailable: KeyTerminal opens its window.
	TerminalAvailable
	// TerminalOpen: its window is open.
	TerminalOpen
)

// TerminalOpenNote says the block's terminal window is open.
const TerminalOpenNote = "  terminal open in its window (close it, or q there, to come back)"

// TerminalWaitingHint says the command seems to wait for input, and
// which key (keymaps.display.terminal; "" when disabled) answers.
func TerminalWaitingHint(key string) string {
	if key == "" {
		return "  ⌨ seems to wait for input (the terminal key, keymaps.display.terminal, is disabled)"
	}
	return "  ⌨ seems to wait for input — press " + key + " to answer"
}

// TerminalEndedNote says key shows a finished command's terminal.
func TerminalEndedNote(key string) string {
	if key == "" {
		return ""
	}
	return "  " + key + " shows the terminal's replay"
}

// appendScreen draws the last ScreenLines lines of an interactive
// command's screen, and the waiting hint or the open note.
func appendScreen(lines []Line, tc ToolCall) []Line {
	screen := tc.Screen
	if len(screen) > ScreenLines {
		screen = screen[len(screen)-ScreenLines:]
	}
	for _, l := range screen {
		lines = append(lines, Line{Text: "  ┆ " + cutLine(oneLine(l))})
	}
	switch {
	case tc.Terminal == TerminalOpen:
		lines = append(lines, whole(TerminalOpenNote, HlMeta))
	case tc.Waiting:
		lines = append(lines, whole(TerminalWaitingHint(tc.TerminalKey), HlWarning))
	}
	return lines
}
