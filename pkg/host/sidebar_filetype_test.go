package host_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// The sidebar's filetypes are set just after the first open returns
// (their FileType autocommands and ftplugin search no longer delay the
// windows), and a user's FileType autocommand runs after the plugin's
// own buffer options, so it can change them.
func TestSidebarFiletypesAndUserFtplugin(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, _ := start(t, bin)
		n.Lua(`vim.api.nvim_create_autocmd("FileType", { pattern = "magenta-input", callback = function(a) vim.bo[a.buf].omnifunc = "v:lua.my_omni" end })`)
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")
		ft := func(role string) string {
			var s string
			n.LuaResult(&s, `return vim.bo[...].filetype`, n.Buffer(role))
			return s
		}
		n.WaitFor("the filetypes", func() bool { return ft("display") == "magenta" && ft("input") == "magenta-input" }, func() string {
			return "display " + ft("display") + ", input " + ft("input")
		})
		var omni string
		n.LuaResult(&omni, `return vim.bo[...].omnifunc`, n.Buffer("input"))
		assert.Equal(t, "v:lua.my_omni", omni, "the user's FileType autocommand has the last word")
	})
}
