package localshell

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParamClamp(t *testing.T) {
	for in, want := range map[string]string{
		"plain 123456789":           "plain 123456789",
		"a\x1b[99999999b":           "a\x1b[9999b",
		"\x1b[38;2;255;255;255mx":   "\x1b[38;2;255;255;255mx",
		"\x1b[1234;123456Hx":        "\x1b[1234;1234Hx",
		"\x1b[?100000h 100000":      "\x1b[?1000h 100000",
		"\x1b]0;title 99999\x07":    "\x1b]0;title 99999\x07",
		"\x1b\x1b[123456S":          "\x1b\x1b[1234S",
		"\x1b[12\x1b[345678m 56789": "\x1b[12\x1b[3456m 56789",
	} {
		var c paramClamp
		assert.Equal(t, want, string(c.filter([]byte(in))), "%q", in)
	}
	// Across reads.
	var c paramClamp
	got := string(c.filter([]byte("x\x1b[12"))) + string(c.filter([]byte("3456789b 7")))
	assert.Equal(t, "x\x1b[12"+"34b 7", got)
}
