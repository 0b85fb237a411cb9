package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/magenta-nvim/magenta/pkg/headless"
	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/remote"
)

// runHeadless is `magenta-host run [flags] PROMPT`: one thread in the
// current directory, no Neovim (package headless). The model SDKs run in
// the provider process beside the binary, as for the Neovim host.
func runHeadless(args []string) int {
	providers := remote.NewClient(remote.DefaultPath(), 0)
	defer providers.Close()
	// The first SIGINT/SIGTERM aborts the turn; Go's default (exit at
	// once, leaving commands to the supervisors' parent-death signal) is
	// back only after the run.
	interrupt := make(chan os.Signal, 2)
	signal.Notify(interrupt, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(interrupt)
	return headless.Run(args, headless.Deps{
		NewProvider:     provider.Factory(os.Getenv, provider.DefaultRetryPolicy, providers.Adapter),
		Stdin:           os.Stdin,
		StdinIsTerminal: isTerminal(os.Stdin),
		Stdout:          os.Stdout, Stderr: os.Stderr,
		Interrupt: interrupt,
		OpenLog:   host.OpenLog,
		Warm:      providers.Warm,
		Version:   version,
	})
}

// isTerminal reports whether f is a character device (a terminal), not
// a pipe or file.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
