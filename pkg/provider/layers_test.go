package provider_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLayers holds the import direction ARCHITECTURE.md draws: each
// package (with everything under it) may not reach the ones listed, not
// even through another package. The provider types are a base layer;
// capabilities, tools and the stores sit below the thread, the thread
// below the host.
func TestLayers(t *testing.T) {
	const mod = "github.com/magenta-nvim/magenta/pkg/"
	forbidden := map[string][]string{
		"provider/...":     {"chat", "host", "tools", "threadstore", "inline", "mcp", "lsp"},
		"capabilities/...": {"chat", "host", "tools", "threadstore", "inline", "mcp", "lsp", "provider"},
		"threadstore":      {"chat", "host", "tools", "inline", "mcp"},
		"tools":            {"chat", "host", "lsp", "inline", "mcp", "threadstore"},
		"lsp":              {"chat", "host", "tools", "inline"},
		"inline":           {"chat", "host"},
		"mcp/...":          {"chat", "host"},
		"chat/...":         {"host"},
	}
	for pkg, bans := range forbidden {
		out, err := exec.Command("go", "list", "-deps", mod+pkg).Output()
		require.NoError(t, err, pkg)
		for _, dep := range strings.Fields(string(out)) {
			rest, ok := strings.CutPrefix(dep, mod)
			if !ok {
				continue
			}
			for _, ban := range bans {
				assert.False(t, rest == ban || strings.HasPrefix(rest, ban+"/"), "%s imports %s, a layer above it", pkg, rest)
			}
		}
	}
}
