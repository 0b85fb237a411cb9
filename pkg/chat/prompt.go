package chat

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// What the system prompt says about where the model works.
const (
	promptLocal = "The workspace is %s on %s.\n"
	// A container thread: the model must know that its commands and
	// files are the container's and that the user looks at them from
	// outside, or it names paths the user's editor cannot open and
	// assumes the user's tools are there.
	promptDocker = "You work inside the Docker container %q: your commands run there, and your file tools read and write its files, not the user's machine.\n" +
		"The working directory is %s inside the container (relative paths start there)%s.\n" +
		"The user's editor (Neovim) runs outside the container: the paths you see and name are the container's, and the user's machine may not have them.\n"
	promptDockerHome = "; its home directory is %s"
	// A container on the engine of a named Docker context.
	promptDockerContext = "The container runs on the engine of the Docker context %q, which may be another machine.\n"
	// An ssh thread: as for a container, the model must know whose files
	// and commands it has.
	promptSSH = "You work on the machine %q, reached over SSH: your commands run there, and your file tools read and write its files, not the user's machine.\n" +
		"The working directory is %s on that machine (relative paths start there)%s.\n" +
		"The user's editor (Neovim) runs on their own machine: the paths you see and name are the remote machine's, and the user's machine may not have them.\n"
	promptSSHHome = "; the home directory there is %s"
)

// SystemPrompt is magenta's own system prompt for a thread working in
// env, followed by the user's addition from the options.
func SystemPrompt(env *capabilities.Environment, extra string) string {
	var b strings.Builder
	b.WriteString("You are magenta, a coding assistant running inside the user's Neovim. ")
	b.WriteString("Be concise and precise. Use the tools you are given when they help; ")
	b.WriteString("explain what you did, not what you are about to do.\n")
	b.WriteString("For a task of three or more steps, keep the user informed with todo_write: the whole list first, then each time a step starts or ends.\n")
	b.WriteString(whereYouWork(env))
	if extra = strings.TrimSpace(extra); extra != "" {
		b.WriteString("\n")
		b.WriteString(extra)
		b.WriteString("\n")
	}
	return b.String()
}

// whereYouWork describes env to the model: the local workspace, the
// container or the SSH host (read from the name the environment gives
// itself, the convention the saved threads use too: envConfig) and its
// working directory.
func whereYouWork(env *capabilities.Environment) string {
	if env == nil {
		return ""
	}
	switch cfg := envConfig(env); cfg.Type {
	case "docker":
		home := ""
		if env.Home != "" {
			home = fmt.Sprintf(promptDockerHome, env.Home)
		}
		s := fmt.Sprintf(promptDocker, cfg.Container, env.Cwd, home)
		if cfg.Context != "" {
			s += fmt.Sprintf(promptDockerContext, cfg.Context)
		}
		return s
	case "ssh":
		home := ""
		if env.Home != "" {
			home = fmt.Sprintf(promptSSHHome, env.Home)
		}
		return fmt.Sprintf(promptSSH, cfg.Host, env.Cwd, home)
	}
	return fmt.Sprintf(promptLocal, env.Cwd, runtime.GOOS)
}
