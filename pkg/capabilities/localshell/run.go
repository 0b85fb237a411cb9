package localshell

import (
	"errors"
	"os/exec"
	"syscall"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/procsup"
)

// supervisorMargin is how long the host waits, past the grace period,
// for a supervisor to end its tree before killing its group itself.
const supervisorMargin = 2 * time.Second

// running is one started command, supervised or not.
type running interface {
	// wait waits for the command; a non-nil error means it never ran
	// (the supervisor could not start it).
	wait() (syscall.WaitStatus, error)
	// terminate ends the command and its tree; done is closed once wait
	// has returned. It returns when the command has ended.
	terminate(done <-chan struct{})
	// finish ends what the command left running after it ended.
	finish()
}

// start runs cmd directly, or under the supervisor when s has one.
// With tty (its stdin is a PTY slave) the command leads a new session
// with that terminal as controlling terminal, its own process group the
// terminal's foreground one: Ctrl-C written to the master reaches it.
// Supervised, the supervisor does that for it (procsup.StartTerminal)
// and stays outside the session.
func (s *Shell) start(cmd *exec.Cmd, tty bool) (running, error) {
	if s.supervisor == "" {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if tty {
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
		}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		return &direct{cmd: cmd, pgid: cmd.Process.Pid}, nil
	}
	startSupervised := procsup.Start
	if tty {
		startSupervised = procsup.StartTerminal
	}
	p, err := startSupervised(s.supervisor, cmd, capabilities.ShellTerminateGrace)
	if err != nil {
		return nil, err
	}
	return &supervised{p: p, untrack: procsup.Track(s.recordDir(), p)}, nil
}

// startLaunch starts a launched command: through its Start when it has
// one, else as start does.
func (s *Shell) startLaunch(l *Launch, tty bool) (running, error) {
	if l.Start == nil || tty {
		return s.start(l.Cmd, tty)
	}
	st, err := l.Start(l.Cmd)
	if errors.Is(err, ErrNotTaken) && l.Fallback != nil {
		fl, ferr := l.Fallback()
		if ferr != nil {
			return nil, ferr
		}
		fl.Cmd.Stdin, fl.Cmd.Stdout, fl.Cmd.Stderr = l.Cmd.Stdin, l.Cmd.Stdout, l.Cmd.Stderr
		*l = *fl
		return s.start(l.Cmd, tty)
	}
	if err != nil {
		return nil, err
	}
	return &contained{st: st}, nil
}

// contained is a command started by Launch.Start, whose every process
// ends with it.
type contained struct{ st Started }

func (c *contained) wait() (syscall.WaitStatus, error) { return c.st.Wait() }

func (c *contained) terminate(done <-chan struct{}) {
	c.st.Signal(syscall.SIGTERM)
	t := time.NewTimer(capabilities.ShellTerminateGrace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		c.st.Kill()
		<-done
	}
}

// finish has nothing to do: what the command left ended with it.
func (*contained) finish() {}

// direct is a command in its own process group, without supervisor: a
// process that leaves the group (setsid) escapes it.
type direct struct {
	cmd  *exec.Cmd
	pgid int
}

func (d *direct) wait() (syscall.WaitStatus, error) {
	_ = d.cmd.Wait()
	ws, _ := d.cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ws, nil
}

func (d *direct) terminate(done <-chan struct{}) {
	terminateGroup(d.pgid)
	<-done
}

func (d *direct) finish() { terminateGroup(d.pgid) }

// supervised is a command under a procsup supervisor, which ends the
// whole tree itself.
type supervised struct {
	p       *procsup.Process
	untrack func()
}

func (s *supervised) wait() (syscall.WaitStatus, error) {
	ws, err := s.p.Wait()
	s.untrack()
	return ws, err
}

func (s *supervised) terminate(done <-chan struct{}) {
	s.p.Terminate()
	t := time.NewTimer(capabilities.ShellTerminateGrace + supervisorMargin)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		s.p.Kill()
		<-done
	}
}

// finish has nothing to do: the supervisor ended the tree before exiting.
func (*supervised) finish() {}
