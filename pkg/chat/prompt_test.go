package chat

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

const promptIntro = "You are magenta, a coding assistant running inside the user's Neovim. " +
	"Be concise and precise. Use the tools you are given when they help; " +
	"explain what you did, not what you are about to do.\n" +
	"For a task of three or more steps, keep the user informed with todo_write: the whole list first, then each time a step starts or ends.\n"

// A local thread's prompt names the workspace and the OS; the user's
// addition follows.
func TestSystemPromptLocal(t *testing.T) {
	env := &capabilities.Environment{Name: "local", Cwd: "/work/proj", Home: "/home/u"}
	assert.Equal(t, promptIntro+"The workspace is /work/proj on "+runtime.GOOS+".\n\nbe brief\n", SystemPrompt(env, " be brief "))
}

// A Docker thread's prompt says that commands and files are inside the
// container (named), where the working directory is inside it, and that
// the user's editor runs outside it, so the paths the model sees are the
// container's — not only "The workspace is /root".
func TestSystemPromptDocker(t *testing.T) {
	env := &capabilities.Environment{Name: "docker:dev-box", Cwd: "/root", Home: "/root"}
	assert.Equal(t, promptIntro+
		"You work inside the Docker container \"dev-box\": your commands run there, and your file tools read and write its files, not the user's machine.\n"+
		"The working directory is /root inside the container (relative paths start there); its home directory is /root.\n"+
		"The user's editor (Neovim) runs outside the container: the paths you see and name are the container's, and the user's machine may not have them.\n",
		SystemPrompt(env, ""))
}
