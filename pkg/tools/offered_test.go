package tools

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/memfs"
)

func offeredNames(r *Registry, env *capabilities.Environment) []string {
	var names []string
	for _, s := range r.OfferedIn(env) {
		names = append(names, s.Name)
	}
	return names
}

// The specs sent to the model are exactly the tools whose needs the
// environment meets now.
func TestOfferedInFollowsTheEnvironment(t *testing.T) {
	reg := Default()
	env := &capabilities.Environment{Cwd: "/w"}
	assert.Equal(t, []string{"thread_title", "todo_write"}, offeredNames(reg, env), "an empty environment offers only what needs nothing")

	env.Files = memfs.New()
	env.LSP, env.Diagnostics = capabilities.NoLSP{}, capabilities.NoLSP{}
	running := false
	env.LSPAvailable = func() bool { return running }
	assert.Equal(t, []string{"edit_file", "get_file", "thread_title", "todo_write", "write_file"}, offeredNames(reg, env))

	running = true
	assert.Equal(t, []string{"diagnostics", "edit_file", "find_references", "get_file", "hover", "thread_title", "todo_write", "write_file"},
		offeredNames(reg, env), "the LSP tools appear once a server runs")

	for _, name := range reg.names() {
		if name != "thread_title" && name != "todo_write" && name != ExitPlanModeName {
			assert.NotEmpty(t, reg.Needs(name), "%s declares what it needs", name)
		}
	}
}
