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
)

// noProfileLeft is what setup()'s warning adds when no configured
// profile is usable.
const noProfileLeft = ". No usable profile is left: magenta starts no thread until setup() gets a valid one (the default profile is not used in place of yours)"

// A typo in one profile leaves out that profile alone, named with the bad
// key and the nearest valid one; it used to drop the whole list and put
// the default Claude profile (the public API) in place of a proxy.
func TestProfileTypoDropsOnlyThatProfile(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n := nvimtest.Start(t, bin)
		n.Serve()
		var msg string
		n.LuaResult(&msg, `local _, err = require('magenta.config').set({ profiles = {
			{ name = "proxy", provider = "anthropic", model = "m", baseURL = "http://proxy.internal" },
			{ name = "local", provider = "openai", model = "qwen", baseUrl = "http://127.0.0.1:9/v1" },
			{ name = "typo", provider = "anthropc", model = "m" },
		} }); return err`)
		assert.Contains(t, msg, `profile "proxy" (profiles[1]) is left out: unknown option 'profiles[1].baseURL' (did you mean 'baseUrl'?)`)
		assert.Contains(t, msg, `profile "typo" (profiles[3]) is left out: option 'profiles[3].provider' must be one of anthropic, openai, got "anthropc" (did you mean 'anthropic'?)`)
		assert.NotContains(t, msg, "No usable profile")
		var names []string
		n.LuaResult(&names, `return require('magenta.config').profile_names()`)
		assert.Equal(t, []string{"local"}, names, "only the bad profiles are left out; no default is added")

		// Every unknown key gets the nearest name, not only profiles'.
		n.LuaResult(&msg, `local _, err = require('magenta.config').set({ sidebar = { positon = "left" }, keymaps = { input = { sned = "x" } }, shell = { interactive = "alwyas" } }); return err`)
		assert.Contains(t, msg, "unknown option 'sidebar.positon' (did you mean 'position'?)")
		assert.Contains(t, msg, "unknown option 'keymaps.input.sned' (did you mean 'send'?)")
		assert.Contains(t, msg, `got "alwyas" (did you mean 'always'?)`)
		n.LuaResult(&msg, `local _, err = require('magenta.config').set({ bogus = 1 }); return err`)
		assert.Equal(t, "magenta: unknown option 'bogus'", msg, "nothing near: no guess")
	})
}

// When every configured profile is bad there is no profile (never the
// default): setup() says so, and starting a thread is refused with a clear
// error that keeps the typed message; fixing setup() makes it work.
func TestNoUsableProfileStartsNoThread(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n := nvimtest.Start(t, bin)
		n.Serve()
		var ok bool
		n.LuaResult(&ok, `return require('magenta').setup({ profiles = {
			{ name = "proxy", provider = "anthropic", model = "m", baseURL = "http://proxy.internal" } } })`)
		assert.False(t, ok)
		msgs := n.Messages()
		assert.Contains(t, msgs, `magenta: profile "proxy" (profiles[1]) is left out: unknown option 'profiles[1].baseURL' (did you mean 'baseUrl'?)`+noProfileLeft)
		var names []string
		n.LuaResult(&names, `return require('magenta.config').profile_names()`)
		assert.Empty(t, names, "no default profile in place of the configured one")
		var forHost string
		n.LuaResult(&forHost, `return require('magenta.config').for_host()`)
		_, err := config.Decode([]byte(forHost))
		require.Error(t, err, "the host is never sent a profile the user did not configure")

		err = n.V.Command("Magenta")
		require.Error(t, err)
		assert.Contains(t, err.Error(), "magenta: no usable profile: every profile given to setup() was left out")
		var running bool
		n.LuaResult(&running, `return require('magenta.host').running()`)
		assert.False(t, running, "no host was started")

		n.Command("checkhealth magenta")
		health := strings.Join(n.Lines(0), "\n")
		assert.Contains(t, health, "no usable profile")
		assert.Contains(t, health, `profile "proxy" (profiles[1]) is left out`)
		assert.NotContains(t, health, "left out: unknown option 'profiles[1].baseURL' (did you mean 'baseUrl'?) (the default is used)")

		// The input's send key refuses too, and keeps the text.
		n.Lua(`require('magenta.sidebar').restore_input("hello proxy")`)
		err = n.V.Command("lua require('magenta.sidebar').send()")
		require.Error(t, err)
		assert.Contains(t, err.Error(), "The message stays in the input.")
		var text []string
		n.LuaResult(&text, `return vim.api.nvim_buf_get_lines(require('magenta.sidebar').input_buf(), 0, -1, false)`)
		assert.Equal(t, []string{"hello proxy"}, text)
	})
}

// :checkhealth magenta: the MCP heading appears once; a binary on disk
// newer than the running host says to restart; an Anthropic baseUrl
// ending in /v1 is flagged; a missing MCP gateway is named.
func TestCheckHealthNewcomer(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n, _ := start(t, bin)
		health := func() string {
			n.Command("checkhealth magenta")
			text := strings.Join(n.Lines(0), "\n")
			n.Command("bwipeout!")
			return text
		}
		text := health()
		assert.Equal(t, 1, strings.Count(text, "magenta: MCP servers"), text)

		// The plugin was updated: the binary answers another version
		// than the host that runs ("test").
		dir := filepath.Join(n.Dir, "plugin-bin")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		host := filepath.Join(dir, "magenta-host")
		require.NoError(t, os.WriteFile(host, []byte("#!/bin/sh\necho v2.0.0\n"), 0o755))
		n.Setup(`{ host = { binary = "` + host + `" }, profiles = {
			{ name = "fast", provider = "anthropic", model = "model-a" },
			{ name = "proxy", provider = "anthropic", model = "m", baseUrl = "http://proxy.internal/v1" } } }`)
		text = health()
		assert.Contains(t, text, "the running host is test but "+host+" is v2.0.0 (the plugin was updated): restart the host to use it")
		assert.Contains(t, text, ":Magenta restart")
		assert.Contains(t, text, "profile proxy: an Anthropic baseUrl is the API root without /v1")
		// The project's .mcp.json is read by default, so the MCP
		// gateway is looked for beside the host.
		gateway := filepath.Join(dir, "magenta-mcp")
		assert.Contains(t, text, "the MCP gateway is missing: "+gateway)
		require.NoError(t, os.WriteFile(gateway, []byte("#!/bin/sh\n"), 0o755))
		assert.Contains(t, health(), "MCP gateway: "+gateway+" (started with the first server)")

		require.NoError(t, os.WriteFile(host, []byte("#!/bin/sh\necho test\n"), 0o755))
		text = health()
		assert.NotContains(t, text, "restart the host to use it", "the same version needs no restart")
	})
}

// which-key gets a group name for the prefix the global keys share (v3's
// add, v2's register), derived from the configured keys; none when they
// share no prefix of their own.
func TestWhichKeyGroup(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n := nvimtest.Start(t, bin)
		n.Serve()
		registered := func(api, opts string) string {
			n.Lua(`
				_G.wk_calls = {}
				local api = ...
				package.loaded["which-key"] = {
					[api] = function(spec, o) table.insert(_G.wk_calls, vim.inspect({ spec, o }, { newline = " ", indent = "" })) end,
				}`, api)
			n.Setup(opts)
			var calls string
			n.WaitFor("setup's scheduled which-key registration", func() bool {
				n.LuaResult(&calls, `return table.concat(_G.wk_calls, " | ")`)
				return calls != ""
			}, func() string { return calls })
			return calls
		}
		assert.Equal(t, `{ { { "<leader>m", group = "magenta", mode = { "n", "x" } } } }`, registered("add", `{}`))
		assert.Equal(t, `{ { ["<leader>m"] = { name = "+magenta" } }, { mode = "n" } } | { { ["<leader>m"] = { name = "+magenta" } }, { mode = "x" } }`, registered("register", `{}`))
		assert.Equal(t, `{ { { "<Space>a", group = "magenta", mode = { "n" } } } }`,
			registered("add", `{ keymaps = { global = { toggle = "<Space>at", new_thread = "<Space>an", threads = false, abort = "<space>ab", add_buffer = false, plan = false } } }`))

		// No shared prefix of their own (only <leader>): nothing.
		var prefix string
		n.Setup(`{ keymaps = { global = { toggle = "<leader>t", new_thread = "<leader>n" } } }`)
		n.LuaResult(&prefix, `return require('magenta.keys').register_which_key({ add = function() error("called") end }) or ""`)
		assert.Empty(t, prefix)
		n.Setup(`{ keymaps = { global = { toggle = "<Space>t", new_thread = "<space>n", threads = false, abort = false, add_buffer = false } } }`)
		n.LuaResult(&prefix, `return require('magenta.keys').register_which_key({ add = function() error("called") end }) or ""`)
		assert.Empty(t, prefix)
		n.Setup(`{ keymaps = { global = { toggle = "gt", new_thread = "<leader>n", threads = false, abort = false, add_buffer = false } } }`)
		n.LuaResult(&prefix, `return require('magenta.keys').register_which_key({ add = function() error("called") end }) or ""`)
		assert.Empty(t, prefix)
	})
}
