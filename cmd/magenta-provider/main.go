// Command magenta-provider is magenta's provider process: it runs the
// model providers' SDK adapters for the host (magenta-host starts it at
// the first request of a session, beside itself) and speaks the protocol
// of package remote on its stdin and stdout. It is not meant to be run by
// hand.
//
//	magenta-provider            serve the host on stdio
//	magenta-provider --version  print the version and the protocol
package main

import (
	"fmt"
	"os"

	"github.com/magenta-nvim/magenta/pkg/provider/backend"
	"github.com/magenta-nvim/magenta/pkg/provider/remote"
)

// version is set by the Makefile (-ldflags "-X main.version=...").
var version = "dev"

func main() {
	if len(os.Args) > 1 {
		if os.Args[1] == "--version" {
			fmt.Printf("%s (protocol %d)\n", version, remote.Protocol)
			return
		}
		fmt.Fprintln(os.Stderr, "magenta-provider is started by magenta-host; it takes no arguments but --version")
		os.Exit(2)
	}
	if err := remote.Serve(os.Stdin, os.Stdout, os.Stderr, backend.Adapter); err != nil {
		fmt.Fprintln(os.Stderr, "magenta-provider:", err)
		os.Exit(1)
	}
}
