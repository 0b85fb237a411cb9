package chat

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/threadstore"
)

// A thread is saved with where it works, read from the name its
// environment gives itself.
func TestEnvConfigFromTheEnvironmentName(t *testing.T) {
	for _, tt := range []struct {
		name, cwd string
		want      threadstore.Env
	}{
		{"local", "/work", threadstore.Env{Type: "local"}},
		{"memory", "/", threadstore.Env{Type: "local"}},
		{"docker:dev", "/work", threadstore.Env{Type: "docker", Container: "dev", Cwd: "/work"}},
		{"docker:remote/dev", "/work", threadstore.Env{Type: "docker", Context: "remote", Container: "dev", Cwd: "/work"}},
		{"ssh:devbox", "/home/me/src", threadstore.Env{Type: "ssh", Host: "devbox", Cwd: "/home/me/src"}},
		{"ssh:me@devbox.example", "/srv", threadstore.Env{Type: "ssh", Host: "me@devbox.example", Cwd: "/srv"}},
	} {
		got := envConfig(&capabilities.Environment{Name: tt.name, Cwd: tt.cwd})
		assert.Equal(t, tt.want, got, tt.name)
		if tt.want.Type != "local" {
			assert.Equal(t, tt.name, got.Label(), "the list shows the environment's own name")
		}
	}
	assert.Equal(t, threadstore.Env{Type: "local"}, envConfig(nil))
}

// An ssh thread's prompt names the machine and says whose files and
// commands the model has; a container on a named context says so.
func TestSystemPromptSSHAndDockerContext(t *testing.T) {
	env := &capabilities.Environment{Name: "ssh:devbox", Cwd: "/home/me/src", Home: "/home/me"}
	assert.Equal(t, promptIntro+
		"You work on the machine \"devbox\", reached over SSH: your commands run there, and your file tools read and write its files, not the user's machine.\n"+
		"The working directory is /home/me/src on that machine (relative paths start there); the home directory there is /home/me.\n"+
		"The user's editor (Neovim) runs on their own machine: the paths you see and name are the remote machine's, and the user's machine may not have them.\n",
		SystemPrompt(env, ""))
	env = &capabilities.Environment{Name: "docker:remote/dev", Cwd: "/work"}
	got := SystemPrompt(env, "")
	assert.Contains(t, got, `You work inside the Docker container "dev": `)
	assert.Contains(t, got, `The container runs on the engine of the Docker context "remote", which may be another machine.`)
}

// A reopened thread whose environment cannot be made says which and
// goes on locally; Docker's words are unchanged.
func TestUnusableEnvNote(t *testing.T) {
	assert.Equal(t, "The container dev of this thread cannot be used (gone). The thread goes on in the local workspace: its commands now run here, not in the container. Start a new Docker thread with :Magenta new-thread docker <container> to work in a container again.",
		unusableEnvNote(threadstore.Env{Type: "docker", Container: "dev"}, errGone))
	assert.Contains(t, unusableEnvNote(threadstore.Env{Type: "docker", Container: "dev", Context: "remote"}, errGone), "The container dev (Docker context remote) of this thread")
	assert.Equal(t, "The host devbox of this thread cannot be used (gone). The thread goes on in the local workspace: its commands now run here, not on devbox. Start a new SSH thread with :Magenta new-thread ssh <host> [dir] to work there again.",
		unusableEnvNote(threadstore.Env{Type: "ssh", Host: "devbox"}, errGone))
}

var errGone = errors.New("gone")
