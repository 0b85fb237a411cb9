// Command magenta-supervisor is the per-command process supervisor the
// host runs each shell command under (package procsup: a subreaper that
// ends the command's whole tree, with a parent-death signal). It is a
// binary of its own, beside magenta-host, because it starts for every
// command: a small program that links only procsup starts in about a
// millisecond, where re-executing the host (its whole runtime and package
// initialisation) took several. It is also the sandbox's confinement
// parent and each confined command's init (package zygote), and, copied
// to a remote machine by an ssh environment, the agent that runs its
// commands there (package remoteagent).
package main

import (
	"fmt"
	"os"

	"github.com/magenta-nvim/magenta/pkg/capabilities/procsup"
	"github.com/magenta-nvim/magenta/pkg/capabilities/remoteagent"
	"github.com/magenta-nvim/magenta/pkg/sandbox/zygote"
)

// version is set by the Makefile (-ldflags "-X main.version=...").
var version = "dev"

func main() {
	procsup.MainIfSupervisor() // in supervisor mode it never returns
	zygote.MainIfZygote()      // nor as the sandbox's confinement parent or a command's init
	remoteagent.MainIfAgent()  // nor as a remote environment's agent (uploaded there by the host)
	if len(os.Args) == 2 && os.Args[1] == "--version" {
		fmt.Println("magenta-supervisor", version)
		return
	}
	fmt.Fprintln(os.Stderr, "magenta-supervisor: started by magenta-host for each shell command; not meant to be run by hand")
	os.Exit(2)
}
