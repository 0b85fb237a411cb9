//go:build !linux

package zygote

import (
	"errors"
	"os"
	"syscall"
)

const supported = false

func serve() int               { return 2 }
func runInit() int             { return 2 }
func runClient(_ []string) int { return 2 }

// Options configure a Parent.
type Options struct {
	Executable string
	Args       func(self string, args ...string) ([]string, error)
	CheckOps   func() ([]string, error)
	Log        func(msg string)
}

// Command is never started here.
type Command struct{}

func (*Command) Wait() (syscall.WaitStatus, error) { return 0, errors.New("unsupported") }
func (*Command) Signal(syscall.Signal)             {}
func (*Command) Kill()                             {}

// Parent is unsupported here: it is never ready.
type Parent struct{}

func New(Options) *Parent   { return &Parent{} }
func (*Parent) Start()      {}
func (*Parent) Ready() bool { return false }
func (*Parent) Run(_, _ []string, _ string, _ []string, _, _, _ *os.File) (*Command, error) {
	return nil, ErrNotTaken
}
func (*Parent) Status() (bool, string) { return false, "unsupported on this system" }
func (*Parent) Close()                 {}
