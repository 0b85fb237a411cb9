package headless

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

// parityCases are config files whose options must come out as setup()
// with the same table sends them to the host.
var parityCases = []string{
	`{}`,
	`{"sandbox": {"network": "allow", "allowWrite": ["/tmp/x"]}, "threads": {"maxAge": 7}}`,
	`{"profiles": [{"name": "local", "provider": "openai", "model": "qwen", "baseUrl": "http://127.0.0.1:8080/v1/"}],
	  "subagents": {"maxDepth": 2}, "shell": {"maxTimeout": 30}, "grep": {"rgPath": "/usr/bin/rg"}, "logLevel": "debug",
	  "keymaps": {"global": {"toggle": "<leader>x"}}, "sidebar": {"position": "left"}}`,
}

// TestDefaultsMatchLua holds the headless defaults and merge to
// lua/magenta/config.lua's: the same table given to setup() in a real
// Neovim sends the host the same options a config file gives.
func TestDefaultsMatchLua(t *testing.T) {
	bins := nvimtest.Binaries()
	if len(bins) == 0 {
		t.Skip("no Neovim found: install it or set MAGENTA_TEST_NVIMS")
	}
	n := nvimtest.Start(t, bins[0])
	n.Serve()
	for _, c := range parityCases {
		var sent string
		n.LuaResult(&sent, `local cfg = require("magenta.config"); local _, err = cfg.set(vim.json.decode(...)); assert(err == nil, err); return cfg.for_host()`, c)
		want, err := config.Decode([]byte(sent))
		require.NoError(t, err, sent)
		want.TerminalKey, want.DisplayKeys = nil, nil // derived from keymaps: the editor's
		got, problems := DecodeConfig([]byte(c))
		require.Empty(t, problems, c)
		assert.Equal(t, want, got, "config file %s\nsetup() sends %s", c, sent)
	}
}

// Every problem of a config file is named, each once.
func TestDecodeConfigNamesEveryProblem(t *testing.T) {
	_, problems := DecodeConfig([]byte(`{
	  "profiles": [{"name": "a", "provider": "nope", "model": "m"}],
	  "sandbox": {"network": "maybe", "colour": "red"},
	  "shell": {"maxTimeout": "long"},
	  "grep": {"download": "yes"},
	  "bogus": 1,
	  "terminalKey": "t",
	  "threads": {"maxAge": -1}
	}`))
	joined := strings.Join(problems, "\n")
	for _, want := range []string{
		"unknown option 'bogus'",
		"unknown option 'terminalKey'",
		"unknown option 'sandbox.colour'",
		"option 'shell.maxTimeout': a JSON string is not a valid value (expected a number)",
		"option 'grep.download': a JSON string is not a valid value (expected true or false)",
		`profiles[1].provider: "nope" is not one of`,
	} {
		assert.Contains(t, joined, want)
	}
	assert.Len(t, problems, 7, joined)
	assert.Contains(t, joined, "threads.maxAge")
}

func TestDecodeConfigBadJSON(t *testing.T) {
	_, problems := DecodeConfig([]byte(`{"profiles": [`))
	require.Len(t, problems, 1)
	assert.Contains(t, problems[0], "not valid JSON")
	_, problems = DecodeConfig([]byte(`[1]`))
	assert.Equal(t, []string{"the options must be a JSON object"}, problems)
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "none.json")
	opts, err := LoadConfig(missing, false)
	require.NoError(t, err, "a missing default file means the defaults")
	assert.Equal(t, "claude-sonnet", opts.Profiles[0].Name)
	_, err = LoadConfig(missing, true)
	require.Error(t, err, "a file the user named must exist")
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"a": 1, "b": 2}`), 0o600))
	_, err = LoadConfig(bad, true)
	assert.EqualError(t, err, bad+": 2 problems:\n  - unknown option 'a'\n  - unknown option 'b'")
}

func TestApplyProfileFlags(t *testing.T) {
	opts, problems := DecodeConfig([]byte(`{"profiles": [
	  {"name": "a", "provider": "anthropic", "model": "m1"},
	  {"name": "b", "provider": "openai", "model": "m2", "baseUrl": "http://x/v1/"}]}`))
	require.Empty(t, problems)
	got, err := applyProfileFlags(opts, params{profile: "b", model: "m3", baseURL: "http://y/v1/"})
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "a"}, []string{got.Profiles[0].Name, got.Profiles[1].Name})
	assert.Equal(t, "m3", got.Profiles[0].Model)
	assert.Equal(t, "http://y/v1/", got.Profiles[0].BaseURL)
	assert.Equal(t, "m2", opts.Profiles[1].Model, "the options given are not changed")
	_, err = applyProfileFlags(opts, params{profile: "c"})
	assert.EqualError(t, err, `--profile: no profile "c" (profiles: a, b)`)
}

func TestDataDir(t *testing.T) {
	env := map[string]string{"XDG_DATA_HOME": "/d"}
	get := func(k string) string { return env[k] }
	assert.Equal(t, "/d/nvim", DataDir(get))
	env["NVIM_APPNAME"] = "lazyvim"
	assert.Equal(t, "/d/lazyvim", DataDir(get))
}

func TestParseParams(t *testing.T) {
	var stderr strings.Builder
	p, err := parseParams([]string{"fix", "--json", "the", "bug", "--max-turns", "3", "--", "--now"}, &stderr, "/c.json")
	require.NoError(t, err)
	assert.Equal(t, "fix the bug --now", p.prompt)
	assert.True(t, p.json)
	assert.Equal(t, 3, p.maxTurns)
	assert.False(t, p.configSet)
	p, err = parseParams([]string{"-"}, &stderr, "/c.json")
	require.NoError(t, err)
	assert.True(t, p.fromStdin)
	for _, bad := range [][]string{{"--approve=maybe", "x"}, {"--max-cost", "-1", "x"}, {"--base-url", "ftp://x", "x"}, {"--nope"}} {
		_, err := parseParams(bad, &stderr, "/c.json")
		assert.ErrorIs(t, err, errUsage, bad)
	}
}
