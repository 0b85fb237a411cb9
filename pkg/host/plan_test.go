package host_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// :Magenta plan turns plan mode on for the shown thread (the header
// says so, the request offers exit_plan_mode and no write_file), and off
// again.
func TestPlanModeCommand(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := start(t, bin)
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")
		n.Command("Magenta plan")
		n.WaitForText("display", "plan mode: read-only tools until you approve a plan")
		n.FocusRole("input")
		n.Type("how would you do it?")
		n.Keys("<CR>")
		call := fake.Next(t)
		var names []string
		for _, s := range call.Request.Tools {
			names = append(names, s.Name)
		}
		assert.Contains(t, names, "exit_plan_mode")
		assert.NotContains(t, names, "write_file")
		call.Reply("like this")
		n.WaitForText("display", "like this")
		n.Command("Magenta plan")
		n.WaitForText("display", "plan mode is over")
		text := n.WaitForText("display", "ready")
		assert.NotContains(t, text, "plan mode: read-only tools until")
	})
}
