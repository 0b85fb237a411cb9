package localshell

import (
	"os"
	"os/exec"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// outputs are where a command's output comes from: two pipes, or the
// master of a pseudo-terminal (interactive commands).
type outputs interface {
	// started is called once the command has been started (or failed
	// to): the command's ends of the pipes or the PTY slave are closed
	// here, so the reads see EOF when the command's tree is gone.
	started()
	// read starts the readers; they send chunks to out, then one nil
	// chunk per stream (Stdout and Stderr) at the end.
	read(out chan<- chunk)
	// cutShort makes the readers stop at once (a process out of reach
	// keeps the output open).
	cutShort()
	// close releases everything; the readers have ended.
	close()
	// terminal is the interactive command's Terminal, or nil.
	terminal() *terminal
}

// pipeOutputs read stdout and stderr from two pipes.
type pipeOutputs struct {
	outR, outW, errR, errW *os.File
}

func newPipeOutputs(cmd *exec.Cmd) (*pipeOutputs, error) {
	// cmd.Stdin stays nil: the child reads /dev/null.
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(outR, outW)
		return nil, err
	}
	growPipe(outW)
	growPipe(errW)
	cmd.Stdout, cmd.Stderr = outW, errW
	return &pipeOutputs{outR: outR, outW: outW, errR: errR, errW: errW}, nil
}

func (p *pipeOutputs) started() { closeAll(p.outW, p.errW) }

func (p *pipeOutputs) read(out chan<- chunk) {
	go readPipe(p.outR, capabilities.Stdout, out)
	go readPipe(p.errR, capabilities.Stderr, out)
}

func (p *pipeOutputs) cutShort() {
	now := time.Now()
	_ = p.outR.SetReadDeadline(now)
	_ = p.errR.SetReadDeadline(now)
}

func (p *pipeOutputs) close() { closeAll(p.outR, p.errR) }

func (*pipeOutputs) terminal() *terminal { return nil }

// closeAll closes the files that are not nil.
func closeAll(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			_ = f.Close()
		}
	}
}
