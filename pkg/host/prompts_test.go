package host_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/prompts"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// plantPrompts writes 50 skills, 50 commands and 10 agents into the
// workspace, and one command of the user's into home.
func plantPrompts(t *testing.T, ws, home string) {
	for i := range 50 {
		writeFile(t, filepath.Join(ws, ".claude", "skills", fmt.Sprintf("skill-%d", i), "SKILL.md"),
			fmt.Sprintf("---\nname: skill-%d\ndescription: Does task %d.\n---\nSteps.\n", i, i))
		writeFile(t, filepath.Join(ws, ".claude", "commands", fmt.Sprintf("cmd-%d.md", i)),
			fmt.Sprintf("---\ndescription: command %d\nargument-hint: [what]\n---\nDo %d with $1.\n", i, i))
	}
	for i := range 10 {
		writeFile(t, filepath.Join(ws, ".claude", "agents", fmt.Sprintf("agent-%d.md", i)),
			fmt.Sprintf("---\nname: agent-%d\ndescription: agent %d\n---\nYou are agent %d.\n", i, i, i))
	}
	writeFile(t, filepath.Join(ws, ".claude", "commands", "frontend", "review.md"), "---\ndescription: Review the UI\n---\nReview.\n")
	writeFile(t, filepath.Join(home, ".claude", "commands", "deploy.md"), "Deploy $ARGUMENTS.\n")
}

// With 50 skills, 50 commands and 10 agents present, the first toggle
// reads none of them; the input's omnifunc completes /commands from the
// start of the input (the first completion lists them, once), next to
// the @-mentions; <C-x><C-o> inserts a unique one, and sending it expands
// it on the wire while the chat shows it as typed.
func TestSlashCommandCompletion(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		home := t.TempDir()
		t.Setenv("HOME", home)
		t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
		n := nvimtest.Start(t, bin)
		fake := providertest.New()
		h := n.StartHost(host.Options{
			Version:     "test",
			NewProvider: func(config.Profile) (provider.Provider, error) { return fake, nil },
		})
		n.Setup(testOptions)
		plantPrompts(t, n.Dir, home)
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")
		assert.Equal(t, prompts.Stats{}, h.Prompts().Stats(), "the toggle lists and reads no skill, command or agent")

		n.FocusRole("input")
		complete := func(lines ...string) (int, []string, []string) {
			var res struct {
				Start int      `msgpack:"start"`
				Words []string `msgpack:"words"`
				Menus []string `msgpack:"menus"`
			}
			n.LuaResult(&res, `
				local lines = ...
				vim.o.virtualedit = "onemore" -- the cursor after the last character, as in Insert mode
				vim.api.nvim_buf_set_lines(0, 0, -1, false, lines)
				vim.api.nvim_win_set_cursor(0, { #lines, #lines[#lines] })
				local f = vim.bo.omnifunc
				local start = vim.fn[f](1, "")
				local words, menus = {}, {}
				if start >= 0 then
					for _, item in ipairs(vim.fn[f](0, lines[#lines]:sub(start + 1))) do
						words[#words + 1] = item.word
						menus[#menus + 1] = (item.abbr or item.word) .. " " .. (item.menu or "")
					end
				end
				return { start = start, words = words, menus = menus }`, lines)
			return res.Start, res.Words, res.Menus
		}
		start, words, menus := complete("/cmd-1")
		assert.Equal(t, 0, start)
		assert.Equal(t, []string{"/cmd-1", "/cmd-10", "/cmd-11", "/cmd-12", "/cmd-13", "/cmd-14", "/cmd-15", "/cmd-16", "/cmd-17", "/cmd-18", "/cmd-19"}, words)
		assert.Equal(t, "/cmd-1 [what] (project) command 1", menus[0])
		assert.Equal(t, int64(112), h.Prompts().Stats().FilesRead, "the first completion read every file once")
		_, words, menus = complete("/")
		assert.Len(t, words, 52)
		assert.Contains(t, menus, "/deploy (user) Deploy $ARGUMENTS.")
		assert.Contains(t, menus, "/review (project:frontend) Review the UI")
		start, _, _ = complete("see /cmd")
		assert.Equal(t, -3, start, "a /word inside the text is no command")
		start, _, _ = complete("first line", "/cmd")
		assert.Equal(t, -3, start, "only at the start of the input")
		_, words, _ = complete("/dep @di")
		assert.Equal(t, []string{"@diag", "@diff"}, words, "the mentions still complete")
		assert.Equal(t, int64(112), h.Prompts().Stats().FilesRead, "nothing changed, nothing read again")

		n.Lua(`vim.api.nvim_buf_set_lines(0, 0, -1, false, {})`)
		n.Keys("i/depl<C-x><C-o> the site<Esc>")
		require.Equal(t, []string{"/deploy the site"}, n.Lines(n.Buffer("input")))
		n.Keys("<CR>")
		call := fake.Next(t)
		content := call.Request.Messages[0].Content
		require.Len(t, content, 2)
		assert.Equal(t, `The user ran the command /deploy with the arguments "the site". It is one of the user's commands (~/.claude/commands/deploy.md). Its prompt:`+"\n\nDeploy the site.", content[0].Text)
		assert.Equal(t, "/deploy the site", content[1].Text)
		var skillDesc string
		for _, s := range call.Request.Tools {
			if s.Name == "skill" {
				skillDesc = s.Description
			}
		}
		assert.Contains(t, skillDesc, "- `skill-49`: Does task 49. (workspace)")
		assert.True(t, strings.Contains(n.WaitForText("display", "(attached: /deploy (~/.claude/commands/deploy.md))"), "/deploy the site"))
		call.Reply("deployed")
		n.WaitForText("display", "deployed")
	})
}

// The user's own skill directories are readable without asking (the
// files a skill's instructions name); a secret in one still asks, and a
// file beside them in ~/.claude does too.
func TestUserSkillFilesAreReadableWithoutAsking(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		home := t.TempDir()
		t.Setenv("HOME", home)
		t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
		skill := filepath.Join(home, ".claude", "skills", "pdf")
		writeFile(t, filepath.Join(skill, "SKILL.md"), "---\nname: pdf\ndescription: Fill forms.\n---\nRead forms.md.\n")
		writeFile(t, filepath.Join(skill, "forms.md"), "the fields\n")
		writeFile(t, filepath.Join(skill, ".env"), "TOKEN=x\n")
		writeFile(t, filepath.Join(home, ".claude", "settings.json"), "{}\n")
		n, fake := startShell(t, bin)

		n.FocusRole("input")
		n.Type("fill the form")
		n.Keys("<CR>")
		call := fake.Next(t)
		call.ToolUse("tu_s", "skill", map[string]any{"name": "pdf"})
		call.Stop(provider.StopToolUse)
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		require.False(t, isErr, res)
		assert.Contains(t, res, "Its directory is "+skill+":")
		next.ToolUse("tu_f", "get_file", map[string]any{"path": filepath.Join(skill, "forms.md")})
		next.Stop(provider.StopToolUse)
		third := fake.Next(t)
		res, isErr = lastResult(t, third)
		require.False(t, isErr, res)
		assert.Equal(t, "1\tthe fields", res, "read without asking")

		for _, path := range []string{filepath.Join(skill, ".env"), filepath.Join(home, ".claude", "settings.json")} {
			third.ToolUse("tu_"+filepath.Base(path), "get_file", map[string]any{"path": path})
			third.Stop(provider.StopToolUse)
			n.WaitForText("display", "needs approval: reads "+path)
			n.FocusRole("display")
			n.CursorTo("> NO")
			n.Keys("<CR>")
			third = fake.Next(t)
			res, isErr = lastResult(t, third)
			assert.True(t, isErr, path)
			assert.Contains(t, res, "was not read: the user declined", path)
		}
		third.Reply("ok")
		n.WaitForText("display", "ok")
	})
}
