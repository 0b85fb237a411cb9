package host_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
	"github.com/magenta-nvim/magenta/pkg/provider"
)

func TestSetupValidatesOptions(t *testing.T) {
	cases := []struct{ opts, want string }{
		{`{ sidebar = { positon = "left" } }`, "unknown option 'sidebar.positon' (did you mean 'position'?)"},
		{`{ bogus = 1 }`, "unknown option 'bogus'"},
		{`{ sidebar = { width = "wide" } }`, "option 'sidebar.width' must be number, got string"},
		{`{ sidebar = { position = "middle" } }`, "option 'sidebar.position' must be one of left, right, above, below, tab, got \"middle\""},
		{`{ profiles = {} }`, "option 'profiles' must be a non-empty list" + noProfileLeft},
		{`{ profiles = { { name = "x", provider = "anthropic" } } }`, "profile \"x\" (profiles[1]) is left out: option 'profiles[1].model' is required" + noProfileLeft},
		{`{ profiles = { { name = "x", provider = "gemini", model = "m" } } }`, "profile \"x\" (profiles[1]) is left out: option 'profiles[1].provider' must be one of anthropic, openai, got \"gemini\"" + noProfileLeft},
		{`{ profiles = { { name = "x", provider = "openai", model = "m", extra = true } } }`, "profile \"x\" (profiles[1]) is left out: unknown option 'profiles[1].extra'" + noProfileLeft},
		{`{ keymaps = { global = { toggle = 5 } } }`, "option 'keymaps.global.toggle' must be string or false, got number"},
		{`{ logLevel = "loud" }`, "option 'logLevel' must be one of debug, info, warn, error, got \"loud\""},
		{`{ profiles = { { name = "x", provider = "openai", model = "m", idleTimeout = "1m" } } }`, "profile \"x\" (profiles[1]) is left out: option 'profiles[1].idleTimeout' must be number, got string" + noProfileLeft},
		{`{ profiles = { { name = "x", provider = "openai", model = "m", pricing = { input = -1, output = 15 } } } }`, "profile \"x\" (profiles[1]) is left out: option 'profiles[1].pricing.input' must be a non-negative number, got -1" + noProfileLeft},
		{`{ profiles = { { name = "x", provider = "openai", model = "m", pricing = { input = 3, output = 15, cacheRead = "cheap" } } } }`, "profile \"x\" (profiles[1]) is left out: option 'profiles[1].pricing.cacheRead' must be a non-negative number, got string" + noProfileLeft},
		{`{ profiles = { { name = "x", provider = "openai", model = "m", pricing = { input = 3 } } } }`, "profile \"x\" (profiles[1]) is left out: option 'profiles[1].pricing.output' is required" + noProfileLeft},
		{`{ profiles = { { name = "x", provider = "openai", model = "m", pricing = { input = 3, output = 15, cache = 1 } } } }`, "profile \"x\" (profiles[1]) is left out: unknown option 'profiles[1].pricing.cache'" + noProfileLeft},
		{`{ profiles = { { name = "x", provider = "anthropic", model = "m", thinking = { budgetTokens = "big" } } } }`, "profile \"x\" (profiles[1]) is left out: option 'profiles[1].thinking.budgetTokens' must be a whole number, got string" + noProfileLeft},
		{`{ profiles = { { name = "x", provider = "openai", model = "m", reasoningEffort = "max" } } }`, "profile \"x\" (profiles[1]) is left out: option 'profiles[1].reasoningEffort' must be one of low, medium, high, got \"max\"" + noProfileLeft},
		{`{ profiles = { { name = "x", provider = "openai", model = "m", compactAt = "80%" } } }`, "profile \"x\" (profiles[1]) is left out: option 'profiles[1].compactAt' must be number, got string" + noProfileLeft},
		{`{ shell = { interactive = "sometimes" } }`, "option 'shell.interactive' must be one of model, always, never, got \"sometimes\""},
		{`{ keymaps = { display = { terminal = 1 } } }`, "option 'keymaps.display.terminal' must be string or false, got number"},
		{`{ host = { requestTimeout = "5s" } }`, "option 'host.requestTimeout' must be number, got string"},
		{`"not a table"`, "setup() takes a table of options, got string"},
	}
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n := nvimtest.Start(t, bin)
		n.Serve()
		for _, c := range cases {
			var msg string
			n.LuaResult(&msg, `local ok, err = require('magenta.config').set(`+c.opts+`); return err or ""`)
			assert.Equal(t, "magenta: "+c.want, msg, c.opts)
		}
		// Valid options merge over the defaults; lists replace lists.
		var width float64
		var position string
		n.Setup(`{ sidebar = { position = "left" }, keymaps = { global = false } }`)
		n.LuaResult(&width, `return require('magenta.config').options.sidebar.width`)
		n.LuaResult(&position, `return require('magenta.config').options.sidebar.position`)
		assert.Equal(t, 0.4, width)
		assert.Equal(t, "left", position)

		// A valid pricing reaches the host as the profile's, in JSON the
		// Go side decodes.
		var forHost string
		n.Setup(`{ profiles = { { name = "p", provider = "anthropic", model = "m", pricing = { input = 3, output = 15, cacheRead = 0.3 } } } }`)
		n.LuaResult(&forHost, `return require('magenta.config').for_host()`)
		o, err := config.Decode([]byte(forHost))
		require.NoError(t, err)
		require.NotNil(t, o.Profiles[0].Pricing)
		assert.Equal(t, 3.0, o.Profiles[0].Pricing.Input)
		assert.Equal(t, 0.3, o.Profiles[0].Pricing.CacheReadPrice())
		assert.Equal(t, 3.0, o.Profiles[0].Pricing.CacheWritePrice())

		// Thinking and compaction options reach the host too.
		n.Setup(`{ profiles = { { name = "p", provider = "anthropic", model = "m", thinking = { budgetTokens = 2048 }, contextWindow = 1000, compactAt = 0.5, compactProfile = "q" },
			{ name = "q", provider = "openai", model = "o3", reasoningEffort = "low" } } }`)
		n.LuaResult(&forHost, `return require('magenta.config').for_host()`)
		o, err = config.Decode([]byte(forHost))
		require.NoError(t, err)
		assert.Equal(t, &config.Thinking{BudgetTokens: 2048}, o.Profiles[0].Thinking)
		assert.Equal(t, 500, o.Profiles[0].CompactThreshold())
		assert.Equal(t, "q", o.Profiles[0].CompactProfile)
		assert.Equal(t, "low", o.Profiles[1].ReasoningEffort)
	})
}

// A typo never disables the plugin: every problem is named in one message,
// the rest of the options apply, the defaults replace the bad ones, and
// :checkhealth repeats the problems.
func TestSetupWithBadOptionsKeepsThePluginUsable(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, _ := start(t, bin)
		var ok bool
		n.LuaResult(&ok, `return require('magenta').setup({ bogus = 1, sidebar = { width = "wide", position = "left" } })`)
		assert.False(t, ok, "setup() reports that there were problems")
		msgs := n.Messages()
		assert.Contains(t, msgs, "2 problems in setup()")
		assert.Contains(t, msgs, "unknown option 'bogus'")
		assert.Contains(t, msgs, "option 'sidebar.width' must be number, got string")

		var width float64
		var position string
		n.LuaResult(&width, `return require('magenta.config').options.sidebar.width`)
		n.LuaResult(&position, `return require('magenta.config').options.sidebar.position`)
		assert.Equal(t, 0.4, width, "the default replaces the bad value")
		assert.Equal(t, "left", position, "the valid options still apply")

		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")

		n.Command("checkhealth magenta")
		var health string
		n.LuaResult(&health, `return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")`)
		assert.Contains(t, health, "unknown option 'bogus' (the default is used)")
		assert.Contains(t, health, "interactive commands: a resized terminal window resizes the command")
	})
}

func TestSetupStartsNothingAndDefinesCommands(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n := nvimtest.Start(t, bin)
		n.Serve()
		var before, after int
		n.LuaResult(&before, `return #vim.api.nvim_list_chans()`)
		n.Setup(testOptions)
		n.LuaResult(&after, `return #vim.api.nvim_list_chans()`)
		assert.Equal(t, before, after, "setup() must not start the host")

		var comp []string
		n.LuaResult(&comp, `return vim.fn.getcompletion("Magenta t", "cmdline")`)
		assert.Equal(t, []string{"toggle", "threads", "thread"}, comp)
		n.LuaResult(&comp, `return vim.fn.getcompletion("Magenta profile l", "cmdline")`)
		assert.Equal(t, []string{"local"}, comp)

		var lhs string
		n.LuaResult(&lhs, `return vim.fn.maparg("<leader>mt", "n")`)
		assert.NotEmpty(t, lhs, "the default toggle keymap is set")
		n.Setup(`{ keymaps = { global = { toggle = false } } }`)
		n.LuaResult(&lhs, `return vim.fn.maparg("<leader>mt", "n")`)
		assert.Empty(t, lhs, "a keymap set to false is removed")
	})
}

func TestSidebarPositionsAndRoles(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		for _, pos := range []string{"left", "right", "above", "below", "tab"} {
			t.Run(pos, func(t *testing.T) {
				n, _ := start(t, bin)
				n.Setup(`{ sidebar = { position = "` + pos + `" } }`)
				var tabs int
				n.LuaResult(&tabs, `return #vim.api.nvim_list_tabpages()`)
				n.Command("Magenta toggle")
				n.WaitForText("display", "# New thread")
				var names []string
				n.LuaResult(&names, `
					local out = {}
					for _, role in ipairs({"display", "input"}) do
						for _, b in ipairs(vim.api.nvim_list_bufs()) do
							local ok, r = pcall(vim.api.nvim_buf_get_var, b, "magenta_role")
							if ok and r == role then out[#out+1] = vim.api.nvim_buf_get_name(b) end
						end
					end
					return out`)
				assert.Equal(t, []string{"magenta://display", "magenta://input"}, names)
				var afterTabs int
				n.LuaResult(&afterTabs, `return #vim.api.nvim_list_tabpages()`)
				if pos == "tab" {
					assert.Equal(t, tabs+1, afterTabs)
				} else {
					assert.Equal(t, tabs, afterTabs)
				}
				n.Command("Magenta toggle")
				var open bool
				n.LuaResult(&open, `return require('magenta.sidebar').is_open()`)
				assert.False(t, open)
			})
		}
	})
}

func TestCheckHealth(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, _ := start(t, bin)
		n.Command("checkhealth magenta")
		text := strings.Join(n.Lines(0), "\n")
		assert.Contains(t, text, "Neovim 0.")
		assert.Contains(t, text, "host test running")
		assert.Contains(t, text, "profile fast (anthropic model-a)")
		assert.Contains(t, text, "ANTHROPIC_API_KEY")
		assert.Contains(t, text, "profile local (openai qwen at http://127.0.0.1:9/v1): no API key needed")
		assert.Contains(t, text, "ripgrep")
		assert.Contains(t, text, "docker")
		assert.Contains(t, text, "ssh: ", "the OpenSSH client for SSH environments")
	})
}

// The help file's tags are unique and :help finds them.
func TestHelpFile(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n := nvimtest.Start(t, bin)
		n.Serve()
		doc := filepath.Join(n.Dir, "plugin", "doc")
		require.NoError(t, os.MkdirAll(doc, 0o755))
		text, err := os.ReadFile(filepath.Join(nvimtest.Root(), "doc", "magenta.txt"))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(doc, "magenta.txt"), text, 0o644))
		n.Command("helptags " + doc)
		n.Command("set rtp^=" + filepath.Dir(doc))
		for _, tag := range []string{"magenta", "magenta.setup()", ":Magenta-toggle", "magenta-options-profiles", "magenta-keymaps", "magenta-interactive", "magenta-mcp-project", ":Magenta-mcp-trust", "magenta-sandbox-home", "magenta-sandbox-env", "magenta-sidebar-keys", "magenta-which-key"} {
			n.Command("help " + tag)
			n.Command("helpclose")
		}
		// :help magenta opens the file at its top, not a section whose
		// tag merely contains the word.
		n.Command("help magenta")
		var line int
		n.LuaResult(&line, "return vim.fn.line('.')")
		assert.Equal(t, 1, line, ":help magenta lands on the first line")
		n.Command("helpclose")
	})
}

// setup() called again while the host runs updates its profiles.
func TestSetupAgainReconfiguresTheHost(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, _ := start(t, bin)
		n.Command("Magenta toggle")
		n.WaitForText("display", "# New thread")
		n.Setup(`{ profiles = { { name = "other", provider = "openai", model = "m2", baseUrl = "http://127.0.0.1:9/v1" } } }`)
		n.Command("Magenta profile other")
		n.WaitForText("display", "profile other · openai m2")
	})
}

// Shell rules from setup() reach the checker; a bad rule is reported.
func TestShellRulesFromSetup(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := start(t, bin)
		var msg string
		n.LuaResult(&msg, `local ok, err = require('magenta.config').set({ shell = { rules = { { subcommands = {"x"} } } } }); return err or ""`)
		assert.Equal(t, "magenta: option 'shell.rules[1].command' is required", msg)
		n.LuaResult(&msg, `local ok, err = require('magenta.config').set({ shell = { rules = { { command = "npm", denyFlags = "-i" } } } }); return err or ""`)
		assert.Equal(t, "magenta: option 'shell.rules[1].denyFlags' must be a list of strings, got string", msg)

		n.Setup(`{ shell = { logRoot = "` + filepath.Join(n.Dir, "logs") + `", rules = { { command = "touch", args = "write-paths" } } } }`)
		n.Command("Magenta toggle")
		n.Type("touch it")
		n.Keys("<CR>")
		call := fake.Next(t)
		call.ToolUse("tu_r", "bash_command", map[string]string{"command": "touch allowed-by-rule"})
		call.Stop(provider.StopToolUse)
		next := fake.Next(t)
		res, isErr := lastResult(t, next)
		assert.False(t, isErr, res)
		assert.FileExists(t, filepath.Join(n.Dir, "allowed-by-rule"))
		next.Reply("ok")
	})
}

// The shell options reach the tools: shell.maxTimeout is what
// bash_command's description quotes, and a planted log root (a symlink)
// is replaced by the per-user fallback with one warning.
func TestShellOptionsReachTheTools(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, fake := start(t, bin)
		planted := filepath.Join(n.Dir, "planted")
		require.NoError(t, os.Mkdir(planted, 0o755))
		logRoot := filepath.Join(n.Dir, "logs")
		require.NoError(t, os.Symlink(planted, logRoot))
		n.Setup(`{ shell = { maxTimeout = 42, logRoot = "` + logRoot + `", logMaxBytes = 1000000, interactive = "never" } }`)
		n.Command("Magenta toggle")
		n.Type("hi")
		n.Keys("<CR>")
		call := fake.Next(t)
		var desc string
		for _, tool := range call.Request.Tools {
			if tool.Name == "bash_command" {
				desc = tool.Description
			}
		}
		assert.Contains(t, desc, "42s")
		assert.NotContains(t, desc, "10m0s")
		assert.Contains(t, desc, "turned off by the user", "shell.interactive reaches the tool")
		call.Reply("ok")
		n.WaitFor("the log-root warning", func() bool {
			return strings.Contains(n.Messages(), "logs-")
		}, n.Messages)
	})
}

// The display shows the new thread's top as soon as the host has the
// options (chat.PendingFrame), before it builds the thread's environment;
// when building it fails (here: a hook's matcher that the host finds is
// no regular expression), that top goes, since no thread comes, and the
// error is told. (Whether the top was drawn before the failure depends on
// which came first; what must hold is that it does not stay.)
func TestPendingFrameGoesWhenNoThreadComes(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, _ := start(t, bin)
		n.Setup(`{ hooks = { PreToolUse = { { matcher = "([", hooks = { { type = "command", command = "true" } } } } } }`)
		n.Command("Magenta toggle")
		n.WaitFor("the error", func() bool { return strings.Contains(n.Messages(), "magenta options: hooks") }, n.Messages)
		n.WaitFor("the pending frame to go", func() bool {
			return !strings.Contains(n.Text(n.Buffer("display")), "# New thread")
		}, func() string { return n.Text(n.Buffer("display")) })
	})
}
