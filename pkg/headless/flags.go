package headless

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
)

// Approval modes of --approve.
const (
	ApproveNever   = "never"   // every question is answered no
	ApproveSandbox = "sandbox" // the default: what the sandbox confines runs; every question is answered no
	ApproveAlways  = "always"  // every question is answered yes
)

// params are the run's flags and prompt.
type params struct {
	configPath string
	configSet  bool
	profile    string
	model      string
	baseURL    string
	approve    string
	json       bool
	thread     string
	maxTurns   int
	maxCost    float64
	logPath    string
	prompt     string
	// fromStdin: the prompt is read from stdin ("-", or no argument with
	// stdin not a terminal).
	fromStdin bool
}

// errUsage marks a misuse already explained to the user.
var errUsage = errors.New("usage")

const usageText = `usage: magenta-host run [flags] PROMPT   (PROMPT "-" or left out: read from stdin)

Runs one thread in the current directory with the local environment and
no editor, and exits when the model ends its turn. See :help magenta-headless.

`

// parseParams reads the flags; flags may come before or after the
// prompt's words ("--" ends them).
func parseParams(args []string, stderr io.Writer, defaultConfig string) (params, error) {
	var p params
	fs := flag.NewFlagSet("magenta-host run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usageText)
		fs.PrintDefaults()
	}
	fs.StringVar(&p.configPath, "config", defaultConfig, "options as JSON `file` (setup()'s names); a missing default file means the defaults")
	fs.StringVar(&p.profile, "profile", "", "use the profile called `name` (default: the first)")
	fs.StringVar(&p.model, "model", "", "override the profile's `model`")
	fs.StringVar(&p.baseURL, "base-url", "", "override the profile's base `URL`")
	fs.StringVar(&p.approve, "approve", ApproveSandbox, "answer questions: never, sandbox (what the sandbox confines runs; the rest is declined) or always")
	fs.BoolVar(&p.json, "json", false, "write one JSON event per line (schema v1) instead of text")
	fs.StringVar(&p.thread, "thread", "", "continue the saved thread `id` (or a unique prefix)")
	fs.IntVar(&p.maxTurns, "max-turns", 0, "stop after `n` model replies that ask for tools (0: no limit)")
	fs.Float64Var(&p.maxCost, "max-cost", 0, "stop when the thread's cost, sub-agents included, passes `usd` (0: no limit; needs pricing in the profile)")
	fs.StringVar(&p.logPath, "log", "", "log to `file` (default: warnings and errors to stderr)")
	var words []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return p, flag.ErrHelp
			}
			return p, errUsage
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		// After "--" everything is the prompt.
		if i := len(args) - len(rest); i > 0 && args[i-1] == "--" {
			words = append(words, rest...)
			break
		}
		words = append(words, rest[0])
		args = rest[1:]
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "config" {
			p.configSet = true
		}
	})
	switch p.approve {
	case ApproveNever, ApproveSandbox, ApproveAlways:
	default:
		fmt.Fprintf(stderr, "magenta-host run: --approve=%q is not one of never, sandbox, always\n", p.approve)
		return p, errUsage
	}
	if p.maxTurns < 0 {
		fmt.Fprintln(stderr, "magenta-host run: --max-turns must not be negative")
		return p, errUsage
	}
	if p.maxCost < 0 || math.IsNaN(p.maxCost) || math.IsInf(p.maxCost, 0) {
		fmt.Fprintln(stderr, "magenta-host run: --max-cost must be a non-negative number of USD")
		return p, errUsage
	}
	if p.baseURL != "" && !strings.HasPrefix(p.baseURL, "http://") && !strings.HasPrefix(p.baseURL, "https://") {
		fmt.Fprintf(stderr, "magenta-host run: --base-url %q must start with http:// or https://\n", p.baseURL)
		return p, errUsage
	}
	switch {
	case len(words) == 1 && words[0] == "-":
		p.fromStdin = true
	case len(words) == 0:
		p.fromStdin = true // the caller checks that stdin is not a terminal
	default:
		p.prompt = strings.Join(words, " ")
	}
	return p, nil
}
