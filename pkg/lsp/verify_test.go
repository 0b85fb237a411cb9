package lsp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// Lua encodes an empty list as {}; severities arrive as numbers.
func TestDecodeSnapshot(t *testing.T) {
	s, err := decodeSnapshot(`{"items":{},"servers":{},"pending":{},"silent":{},"held":true}`)
	require.NoError(t, err)
	assert.Equal(t, capabilities.DiagnosticsSnapshot{Items: []capabilities.Diagnostic{}, Held: true}, s)

	s, err = decodeSnapshot(`{"items":[{"path":"/w/a.go","line":2,"col":4,"severity":1,"message":"m","source":"compiler","server":"gopls"}],` +
		`"servers":["gopls"],"pending":["pylsp"],"silent":["pylsp"]}`)
	require.NoError(t, err)
	assert.Equal(t, []capabilities.Diagnostic{{Path: "/w/a.go", Line: 2, Col: 4, Severity: "error", Message: "m", Source: "compiler", Server: "gopls"}}, s.Items)
	assert.Equal(t, []string{"gopls"}, s.Servers)
	assert.Equal(t, []string{"pylsp"}, s.Pending)
	assert.Equal(t, []string{"pylsp"}, s.Silent)

	s, err = decodeSnapshot(`{"absent":true}`)
	require.NoError(t, err)
	assert.True(t, s.Absent)

	_, err = decodeSnapshot(`[`)
	assert.Error(t, err)
}
