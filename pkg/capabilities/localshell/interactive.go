package localshell

import (
	"os"
	"os/exec"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// terminalOutputs read an interactive command's PTY master through its
// terminal emulator.
type terminalOutputs struct {
	slave *os.File
	term  *terminal
}

// newTerminalOutputs gives cmd the PTY slave as stdin, stdout and
// stderr, sized TerminalDefaultRows × TerminalDefaultCols.
func newTerminalOutputs(master, slave *os.File, cmd *exec.Cmd) (*terminalOutputs, error) {
	if err := setSize(master, capabilities.TerminalDefaultRows, capabilities.TerminalDefaultCols); err != nil {
		closeAll(master, slave)
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	return &terminalOutputs{slave: slave,
		term: newTerminal(master, capabilities.TerminalDefaultRows, capabilities.TerminalDefaultCols)}, nil
}

func (o *terminalOutputs) started() { closeAll(o.slave) }

func (o *terminalOutputs) read(out chan<- chunk) {
	out <- chunk{stream: capabilities.Stderr} // one stream only
	go o.term.readLoop(out)
}

func (o *terminalOutputs) cutShort() { o.term.cutShort() }

// close stops the terminal. When the command could not be started the
// reader never ran: the master is closed all the same.
func (o *terminalOutputs) close() { o.term.close() }

func (o *terminalOutputs) terminal() *terminal { return o.term }

// terminalEnv is the hardened environment of an interactive command: the
// same, but with a terminal type the emulator understands and colours
// allowed (the user watches the live terminal; the model's text is the
// emulator's, without them).
func terminalEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		switch {
		case strings.HasPrefix(kv, "TERM="):
			out = append(out, "TERM=xterm-256color")
		case strings.HasPrefix(kv, "NO_COLOR="):
		default:
			out = append(out, kv)
		}
	}
	return out
}
