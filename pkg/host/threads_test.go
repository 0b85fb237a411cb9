package host_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// :Magenta delete-thread asks first (a stubbed answer here), deletes
// without asking with !, completes ids, and shows another thread after
// deleting the shown one.
func TestDeleteThreadCommand(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := start(t, bin)
		n.Command("Magenta toggle")
		n.Type("keep me")
		n.Keys("<CR>")
		fake.Next(t).Reply("kept")
		n.WaitForText("display", "kept")
		n.Command("Magenta new-thread")
		n.WaitFor("a new thread", func() bool { return !strings.Contains(n.Text(n.Buffer("display")), "kept") }, n.Messages)
		n.Type("drop me")
		n.Keys("<CR>")
		fake.Next(t).Reply("dropped")
		n.WaitForText("display", "dropped")

		var ids []string
		n.LuaResult(&ids, `return vim.fn.getcompletion("Magenta delete-thread ", "cmdline")`)
		require.Len(t, ids, 2)

		n.Lua(`vim.fn.confirm = function(msg) _G.magenta_asked = msg; return 2 end`)
		n.Command("Magenta delete-thread")
		var asked string
		n.LuaResult(&asked, `return _G.magenta_asked`)
		assert.Equal(t, "magenta: delete the current thread and its saved history?", asked)
		assert.Contains(t, n.Text(n.Buffer("display")), "dropped", "answered No: nothing deleted")

		n.Command("Magenta! delete-thread")
		n.WaitForText("display", "kept")
		n.WaitFor("the deletion notice", func() bool { return strings.Contains(n.Messages(), "magenta: deleted thread") }, n.Messages)
		n.Command("Magenta threads")
		text := n.WaitForText("display", "# Threads")
		assert.NotContains(t, text, "2. ")
		n.LuaResult(&ids, `return vim.fn.getcompletion("Magenta thread ", "cmdline")`)
		assert.Len(t, ids, 1)
	})
}
