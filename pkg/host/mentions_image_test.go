package host_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// After "@image:" the input's omnifunc offers image files only (by name:
// the host tells the format by content when it reads the file).
func TestImageMentionCompletion(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, _ := startShell(t, bin)
		git(t, n.Dir, "init", "-q")
		writeFile(t, filepath.Join(n.Dir, ".gitignore"), "cache/\nconfig/\ndata/\nstate/\n")
		for _, f := range []string{"shots/a.png", "shots/b.JPG", "c.webp", "d.gif", "e.jpeg", "main.go", "notes.txt", "my shot.png"} {
			writeFile(t, filepath.Join(n.Dir, f), "x\n")
		}
		n.FocusRole("input")
		var words []string
		n.LuaResult(&words, `
			local f = vim.bo.omnifunc
			local words = {}
			for _, item in ipairs(vim.fn[f](0, "@image:")) do
				words[#words + 1] = item.word
			end
			return words`)
		assert.Equal(t, []string{"@image:c.webp", "@image:d.gif", "@image:e.jpeg", `@image:"my shot.png"`, "@image:shots/a.png", "@image:shots/b.JPG"}, words)

		n.Keys("ilook @image:shots/a<C-x><C-o><Esc>")
		assert.Equal(t, []string{"look @image:shots/a.png"}, n.Lines(n.Buffer("input")))
	})
}
