package host_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// lua/magenta/protocol.lua names exactly the events and requests the
// host handles: a name on one side only is an event Lua sends that the
// host reports as unknown, or one the host waits for that nothing sends
// by that name. Each table's entries map a name to itself, so a call
// site's protocol.events.x sends "x".
func TestLuaProtocolMatchesHost(t *testing.T) {
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n := nvimtest.Start(t, bin)
		n.Serve()
		var lua struct {
			Events   map[string]string `msgpack:"events"`
			Requests map[string]string `msgpack:"requests"`
		}
		// Copied into plain tables: the originals have a metatable that
		// errors on unknown keys, which is no concern of the encoder.
		n.LuaResult(&lua, `
			local p = require("magenta.protocol")
			local out = { events = {}, requests = {} }
			for kind, names in pairs(out) do
				for k, v in pairs(p[kind]) do names[k] = v end
			end
			return out`)
		for _, side := range []struct {
			kind string
			lua  map[string]string
			host []string
		}{
			{"event", lua.Events, host.EventNames()},
			{"request", lua.Requests, host.RequestNames()},
		} {
			for key, name := range side.lua {
				if key != name {
					t.Errorf("protocol.lua: %ss.%s = %q: the key must be the name", side.kind, key, name)
				}
				if !slices.Contains(side.host, name) {
					t.Errorf("%s %q is in lua/magenta/protocol.lua but not in pkg/host/protocol.go", side.kind, name)
				}
			}
			for _, name := range side.host {
				if _, ok := side.lua[name]; !ok {
					t.Errorf("%s %q is in pkg/host/protocol.go but not in lua/magenta/protocol.lua", side.kind, name)
				}
			}
		}
		// A misspelt name fails where it is used.
		var msg string
		n.LuaResult(&msg, `local ok, err = pcall(function() return require("magenta.protocol").events.sned end) return ok and "" or tostring(err)`)
		if !strings.Contains(msg, "no event named sned") {
			t.Errorf("a misspelt event name: got %q", msg)
		}
	})
}

// hostCallWithLiteral is a call to the host that names its event or
// request with a string literal instead of lua/magenta/protocol.lua.
var hostCallWithLiteral = regexp.MustCompile(`(?:host\(\)|\bhost|\bh|require\("magenta\.host"\))\.(?:notify|notify_if_running|request)\(\s*["']|rpcnotify\([^{]*\{\s*["']|^\s*notify\(\s*["']terminal_`)

// Every call site names its event or request through protocol.lua, so
// the name test above covers what the plugin really sends.
func TestLuaCallsUseProtocolNames(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(nvimtest.Root(), "lua", "magenta", "*.lua"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Lua files: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if hostCallWithLiteral.MatchString(line) {
				t.Errorf("%s:%d names an event or request with a string literal, not protocol.events/requests: %s", filepath.Base(f), i+1, strings.TrimSpace(line))
			}
		}
	}
}
