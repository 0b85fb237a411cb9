package bashperm

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/sandbox"
)

// Exit codes of RunCLI.
const (
	ExitAllow   = 0
	ExitAsk     = 10
	ExitSandbox = 11
	ExitUsage   = 2
)

const cliUsage = "usage: check-bash [--cwd DIR] [--config FILE] [--sandbox] -- COMMAND..."

// RunCLI implements `check-bash [--cwd DIR] [--config FILE] [--sandbox] --
// COMMAND`. It prints "allow" (exit 0), "ask: <reason>" (exit 10) or, with
// --sandbox, "sandbox: <reason>" (exit 11: runs confined without asking;
// the reason says why not unconfined) on stdout; a usage error (no "--",
// no command, unreadable or invalid config) prints a message on stderr
// and exits 2. --cwd defaults to the process's working directory and is
// also the workspace root; Home is $HOME. --sandbox checks against
// cliPolicy's sandbox. Several words after "--" are joined with spaces. An
// empty or blank COMMAND is checked (and asks: "empty command").
func RunCLI(args []string, stdout, stderr io.Writer) int {
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "check-bash: "+format+"\n%s\n", append(a, cliUsage)...)
		return ExitUsage
	}
	var cwd, config string
	sandbox := false
	i := 0
	for ; i < len(args) && args[i] != "--"; i++ {
		name, val, hasVal := strings.Cut(args[i], "=")
		switch name {
		case "--sandbox", "-sandbox":
			sandbox = true
		case "-h", "--help", "-help":
			fmt.Fprintln(stdout, cliUsage)
			return ExitAllow
		case "--cwd", "-cwd", "--config", "-config":
			if !hasVal {
				if i+1 >= len(args) || args[i+1] == "--" {
					return usage("%s needs a value", name)
				}
				i++
				val = args[i]
			}
			if strings.HasSuffix(name, "cwd") {
				cwd = val
			} else {
				config = val
			}
		default:
			return usage("unknown argument %q (is the \"--\" before the command missing?)", args[i])
		}
	}
	if i >= len(args) {
		return usage("missing \"--\" before the command")
	}
	words := args[i+1:]
	if len(words) == 0 {
		return usage("missing command after \"--\"")
	}
	cfg := Config{}
	if config != "" {
		data, err := os.ReadFile(config)
		if err != nil {
			return usage("cannot read config: %v", err)
		}
		if cfg, err = ParseConfig(data); err != nil {
			return usage("invalid config %s: %v", config, err)
		}
	}
	checker, err := New(cfg)
	if err != nil {
		return usage("invalid config %s: %v", config, err)
	}
	if cwd == "" {
		if cwd, err = os.Getwd(); err != nil {
			return usage("cannot determine the working directory: %v", err)
		}
	}
	if cwd, err = filepath.Abs(cwd); err != nil {
		return usage("bad --cwd: %v", err)
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return usage("--cwd %s is not a directory", cwd)
	}
	env := Env{Cwd: cwd, Workspace: cwd, Home: os.Getenv("HOME")}
	if sandbox {
		env.Writable, env.Readable = cliPolicy(cwd, env.Home)
	}
	v := checker.Check(strings.Join(words, " "), env)
	switch {
	case v.Allow:
		fmt.Fprintln(stdout, "allow")
		return ExitAllow
	case v.Sandbox:
		fmt.Fprintf(stdout, "sandbox: %s\n", v.Reason)
		return ExitSandbox
	}
	fmt.Fprintf(stdout, "ask: %s\n", v.Reason)
	return ExitAsk
}

// cliPolicy is the default sandbox policy (sandbox.Policy with the
// workspace and home, nothing added), for trying verdicts from a
// terminal: the same Writable and Readable the host gives the checker
// when no sandbox option is set.
func cliPolicy(workspace, home string) (writable, readable func(string) bool) {
	p := sandbox.Policy{Workspace: workspace, Home: home}
	return p.Writable, p.Readable
}
