package host_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// @diff in a repository whose own config plants a filter (selected by
// .gitattributes, run by any `git diff` of work-tree files) is refused
// from real Neovim: the filter never runs, the chat names the key, and
// the model is told why. (A clean repository's @diff is
// TestMentionsReachTheRequest.)
func TestMentionDiffRefusesPlantedFilter(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := startShell(t, bin)
		git(t, n.Dir, "init", "-q")
		writeFile(t, filepath.Join(n.Dir, "a.txt"), "one\n")
		git(t, n.Dir, "add", "a.txt")
		git(t, n.Dir, "commit", "-q", "-m", "first")
		writeFile(t, filepath.Join(n.Dir, "a.txt"), "two\n")
		mark := filepath.Join(t.TempDir(), "filter-ran")
		writeFile(t, filepath.Join(n.Dir, ".gitattributes"), "*.txt filter=evil\n")
		git(t, n.Dir, "config", "filter.evil.clean", "sh -c 'touch "+mark+"; cat'")

		n.Type("what changed? @diff @staged")
		n.Keys("<CR>")
		content := fake.Next(t).Request.Messages[0].Content
		require.Len(t, content, 3)
		for _, c := range content[:2] {
			assert.True(t, strings.HasPrefix(c.Text, "The user mentioned @"), c.Text)
			assert.Contains(t, c.Text, "but magenta did not run")
			assert.Contains(t, c.Text, "sets filter.evil.clean, which can make git run a program")
		}
		text := n.WaitForText("display", "(attached: @diff (refused: ")
		assert.Contains(t, text, "filter.evil.clean")
		_, err := os.Stat(mark)
		assert.True(t, os.IsNotExist(err), "the planted filter ran")
	})
}
