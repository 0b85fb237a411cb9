// Command magenta-provider is magenta's provider process: it runs the
// model providers' SDK adapters for the host (magenta-host starts it at
// the first request of a session, beside itself) and speaks the protocol
// of package remote on its stdin and stdout. The host also runs it, one
// process per page, to convert HTML fetched by web_fetch (package
// htmlconv/child: the converter's packages stay out of the host, whose
// start-up they would slow). It is not meant to be run by hand.
//
//	magenta-provider                             serve the host on stdio
//	magenta-provider --version                   print the version and the protocol
//	magenta-provider html-to-markdown [--base URL]  convert the HTML page on stdin to Markdown on stdout
//	magenta-provider html-to-text                 convert the HTML page on stdin to visible text on stdout
package main

import (
	"fmt"
	"os"

	"github.com/magenta-nvim/magenta/pkg/htmlconv"
	"github.com/magenta-nvim/magenta/pkg/htmlconv/child"
	"github.com/magenta-nvim/magenta/pkg/provider/backend"
	"github.com/magenta-nvim/magenta/pkg/provider/remote"
)

// version is set by the Makefile (-ldflags "-X main.version=...").
var version = "dev"

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "--version":
			fmt.Printf("%s (protocol %d)\n", version, remote.Protocol)
			return
		case child.ModeMarkdown, child.ModeText:
			os.Exit(htmlconv.RunCLI(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		}
		fmt.Fprintln(os.Stderr, "magenta-provider is started by magenta-host; it takes no arguments but --version, "+
			child.ModeMarkdown+" [--"+child.BaseFlag+" URL] or "+child.ModeText)
		os.Exit(child.ExitUsage)
	}
	if err := remote.Serve(os.Stdin, os.Stdout, os.Stderr, backend.Adapter); err != nil {
		fmt.Fprintln(os.Stderr, "magenta-provider:", err)
		os.Exit(1)
	}
}
