package sshenv

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestQuote: what quote makes is read back as the same word by POSIX
// shells (fish reads the same spelling the same way: see quote).
func TestQuote(t *testing.T) {
	words := []string{"", "plain", "it's", `back\slash`, `\'`, "a b\tc\nd", "$HOME `id` $(id) *", "'", `\`, "ünï"}
	for _, sh := range []string{"sh", "bash"} {
		if _, err := exec.LookPath(sh); err != nil {
			continue
		}
		for _, w := range words {
			out, err := exec.Command(sh, "-c", "printf %s "+quote(w)).Output()
			require.NoError(t, err, "%s: %q", sh, w)
			assert.Equal(t, w, string(out), "%s: %q as %s", sh, w, quote(w))
		}
	}
}
