package tools

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

func TestSymbolPosition(t *testing.T) {
	src := "package main\n\n// Greet greets.\nfunc Greet() {}\n\nvar x = \"日本\"; _ = Greeter; _ = Greet()\n"
	tests := []struct {
		symbol, context string
		want            capabilities.Position
		err             string
	}{
		{"Greet", "", capabilities.Position{Line: 3, Col: 5}, ""},             // not the comment, not Greeter
		{"Greet", "_ = Greet()", capabilities.Position{Line: 5, Col: 35}, ""}, // byte column after non-ASCII
		{"Greet", "nowhere", capabilities.Position{}, "the context \"nowhere\" does not occur"},
		{"Missing", "", capabilities.Position{}, "\"Missing\" does not occur in the file"},
	}
	for _, tt := range tests {
		got, err := SymbolPosition(src, tt.symbol, tt.context)
		if tt.err != "" {
			assert.ErrorContains(t, err, tt.err)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, tt.context)
	}
}
