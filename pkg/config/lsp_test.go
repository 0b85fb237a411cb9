package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLSPOptions(t *testing.T) {
	o, err := Decode([]byte(`{"profiles":[{"name":"a","provider":"anthropic","model":"m"}]}`))
	require.NoError(t, err)
	assert.True(t, o.LSP.Verifying(), "on unless turned off")
	assert.Zero(t, o.LSP.VerifyWait(), "unset: the check's default")

	o, err = Decode([]byte(`{"profiles":[{"name":"a","provider":"anthropic","model":"m"}],"lsp":{"verifyEdits":false,"verifyTimeout":1.5}}`))
	require.NoError(t, err)
	assert.False(t, o.LSP.Verifying())
	assert.Equal(t, 1500*time.Millisecond, o.LSP.VerifyWait())

	for _, bad := range []string{`-1`, `61`} {
		_, err = Decode([]byte(`{"profiles":[{"name":"a","provider":"anthropic","model":"m"}],"lsp":{"verifyTimeout":` + bad + `}}`))
		assert.ErrorContains(t, err, "lsp.verifyTimeout", bad)
	}
}
