// Command magenta-mcp is magenta's MCP gateway: it holds the sessions
// with the MCP servers the user configured, through the official SDK, for
// the host (magenta-host starts it, beside itself, when the first server
// starts) and speaks the protocol of package mcpwire on its stdin and
// stdout. It is not meant to be run by hand.
//
//	magenta-mcp            serve the host on stdio
//	magenta-mcp --version  print the version and the protocol
package main

import (
	"fmt"
	"os"

	"github.com/magenta-nvim/magenta/pkg/mcp/gateway"
	"github.com/magenta-nvim/magenta/pkg/mcp/mcpwire"
)

// version is set by the Makefile (-ldflags "-X main.version=...").
var version = "dev"

func main() {
	if len(os.Args) > 1 {
		if os.Args[1] == "--version" {
			fmt.Printf("%s (protocol %d)\n", version, mcpwire.Protocol)
			return
		}
		fmt.Fprintln(os.Stderr, "magenta-mcp is started by magenta-host; it takes no arguments but --version")
		os.Exit(2)
	}
	if err := gateway.Serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "magenta-mcp:", err)
		os.Exit(1)
	}
}
