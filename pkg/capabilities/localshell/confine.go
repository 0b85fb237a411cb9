package localshell

import (
	"errors"
	"os/exec"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// Confiner runs commands in a sandbox (the host builds one over
// pkg/sandbox's Policy; tests may give their own). Prefix returns the
// argv to put before bash and the environment entries to add, for a
// command whose working directory is cwd; Blocked reads a confined
// command's output and says what the sandbox stopped, or "".
type Confiner interface {
	Prefix(cwd string) (argv, env []string, err error)
	Blocked(output []byte, exitCode int) string
}

// errNoConfiner answers a confined run on a shell without a sandbox: it
// must never run the command unconfined instead.
var errNoConfiner = errors.New("this shell cannot run commands confined (no sandbox)")

// confinedLaunch launches bash under the confiner's prefix, with the
// hardened environment minus credentials: a confined command may reach
// the network when sandbox.network allows it, and API keys are what an
// injected prompt would send out.
func (s *Shell) confinedLaunch(command, cwd string, env []string) (*Launch, error) {
	if s.confiner == nil {
		return nil, errNoConfiner
	}
	prefix, extra, err := s.confiner.Prefix(cwd)
	if err != nil {
		return nil, err
	}
	if len(prefix) == 0 {
		return nil, errNoConfiner
	}
	args := append(append(append([]string(nil), prefix[1:]...), "bash", "--noprofile", "--norc", "-c"), command)
	cmd := exec.Command(prefix[0], args...)
	cmd.Dir = cwd
	cmd.Env = append(withoutCredentials(env), extra...)
	return &Launch{Cmd: cmd}, nil
}

// withoutCredentials drops variables whose names say they hold a secret.
func withoutCredentials(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		upper := strings.ToUpper(name)
		if strings.Contains(upper, "API_KEY") || strings.Contains(upper, "TOKEN") || strings.Contains(upper, "SECRET") ||
			strings.Contains(upper, "PASSWORD") || strings.HasSuffix(upper, "_KEY") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// blockedBy asks the confiner what a failed confined run ran into,
// reading the output the result kept (head and tail lines).
func (s *Shell) blockedBy(res *capabilities.ExecResult) string {
	if s.confiner == nil || res.ExitCode == 0 {
		return ""
	}
	var b strings.Builder
	for _, l := range res.Head {
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	for _, l := range res.Tail {
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	return s.confiner.Blocked([]byte(b.String()), res.ExitCode)
}
