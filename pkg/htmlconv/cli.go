package htmlconv

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/htmlconv/child"
)

// cliUsage is the converter's command line, as magenta-provider takes it.
const cliUsage = "usage: magenta-provider " + child.ModeMarkdown + " [--" + child.BaseFlag + " URL] | " + child.ModeText + " (the page on stdin)"

// RunCLI is the converter process of package child (magenta-provider's
// html-to-markdown and html-to-text modes, and childtest's): args are
// the mode and its flags, ModeMarkdown [--base URL] or ModeText. It
// reads the page from stdin (its first capabilities.FetchMaxBytes, the
// cap of a fetched body) and writes the converted text to stdout,
// nothing added. It returns the exit status: 0; 1 when the conversion or
// a read or write fails, with a line on stderr; child.ExitUsage for a
// command line it does not know, with the usage on stderr.
func RunCLI(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != child.ModeMarkdown && args[0] != child.ModeText) {
		fmt.Fprintln(stderr, cliUsage)
		return child.ExitUsage
	}
	mode := args[0]
	flags := flag.NewFlagSet(mode, flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	var base string
	if mode == child.ModeMarkdown {
		flags.StringVar(&base, child.BaseFlag, "", "the page's URL, against which relative links are made absolute")
	}
	if err := flags.Parse(args[1:]); err != nil || flags.NArg() > 0 {
		fmt.Fprintln(stderr, cliUsage)
		return child.ExitUsage
	}
	page, err := io.ReadAll(io.LimitReader(stdin, capabilities.FetchMaxBytes))
	if err != nil {
		fmt.Fprintf(stderr, "%s: reading the page: %s\n", mode, oneLine(err))
		return 1
	}
	var text string
	if mode == child.ModeMarkdown {
		if text, err = HTMLToMarkdown(page, base); err != nil {
			fmt.Fprintf(stderr, "%s: %s\n", mode, oneLine(err))
			return 1
		}
	} else {
		text = HTMLToText(page)
	}
	if _, err := io.WriteString(stdout, text); err != nil {
		fmt.Fprintf(stderr, "%s: writing the text: %s\n", mode, oneLine(err))
		return 1
	}
	return 0
}

// oneLine is err's message on one line.
func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }
