package tools

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDescribeFillsPlaceholders(t *testing.T) {
	got, err := describe("at most {{.Max}} lines, {{ .Unit }} each; {{.Max}} again",
		struct {
			Max  int
			Unit string
		}{30, "KB"})
	require.NoError(t, err)
	assert.Equal(t, "at most 30 lines, KB each; 30 again", got)

	got, err = describe("wait {{.Wait}}", map[string]any{"Wait": "5s"})
	require.NoError(t, err)
	assert.Equal(t, "wait 5s", got)

	got, err = describe("pointer {{.N}}", &struct{ N int }{7})
	require.NoError(t, err)
	assert.Equal(t, "pointer 7", got)
}

func TestDescribeRejectsWhatItCannotFill(t *testing.T) {
	_, err := describe("{{.Missing}} and {{.Other}}", struct{ N int }{1})
	assert.ErrorContains(t, err, "no value for Missing, Other")

	_, err = describe("{{range .Types}}x{{end}}", struct{ Types []int }{})
	assert.ErrorContains(t, err, "unsupported placeholder")

	_, err = describe("{{.hidden}}", struct{ hidden int }{1})
	assert.ErrorContains(t, err, "no value for hidden")

	_, err = describe("{{.N}}", nil)
	assert.ErrorContains(t, err, "no value for N")
}
