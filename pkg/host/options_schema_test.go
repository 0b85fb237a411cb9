package host_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/bashperm"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/hooks"
	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/nvimtest"
)

// The option schema lives in three places: lua/magenta/validate.lua
// checks what setup() gets, pkg/config decodes and checks again what
// for_host() sends, and doc/magenta.txt tells the user. This test holds
// them together (issue 26): every option validate.lua knows must be one
// pkg/config accepts, with the same type, unless it is Lua-only by design
// (luaOnlyOptions) — and the other way round (goOnlyOptions); every option
// must be documented; a valid value of every option must pass both
// sides, and a wrongly typed one must be refused by both.
//
// Paths are written as schema_paths() writes them: "profiles[].maxTokens"
// for a list's items, "mcpServers.*.url" for a map's entries. Types are
// string, number (any number), integer (whole numbers only: a Go int
// field rejects 1.5), boolean, false, list and map.

// luaOnlyOptions are options validate.lua knows and the host never reads,
// by path prefix, each with the reason.
var luaOnlyOptions = map[string]string{
	"sidebar":           "window layout: Lua opens the sidebar; the host draws into the buffers it is given",
	"keymaps":           "Lua makes the maps; the host gets only the labels it names in its text, as terminalKey and displayKeys",
	"host":              "how Lua starts and waits on the host process (binary, log file, request timeout)",
	"inline.completion": "the inline-edit prompt buffer is Lua's; completion plugins are switched off there by Lua",
}

// goOnlyOptions are keys pkg/config reads that are not options: for_host
// derives them, by path prefix, each with the reason.
var goOnlyOptions = map[string]string{
	"terminalKey": "for_host() derives it from keymaps.display.terminal",
	"displayKeys": "for_host() derives it from keymaps.display",
}

// goOptionTypes stand in for what reflection cannot see: a field decoded
// by a custom UnmarshalJSON, or passed through as raw JSON.
var goOptionTypes = map[string]any{
	// A json.RawMessage the host hands to bashperm.ParseConfig
	// (bashChecker), which rejects unknown fields: bashperm.Rule is the
	// schema.
	"shell.rules": reflect.TypeOf([]bashperm.Rule(nil)),
	// config.SandboxMode.UnmarshalJSON takes "auto", true or false.
	"sandbox.enabled": "boolean|string",
	// A json.RawMessage the host hands to hooks.ParseOption (startHooks):
	// hooks.Settings is the schema.
	"hooks": reflect.TypeOf(hooks.Settings(nil)),
}

// optionSample is a valid value for every option validate.lua knows
// (the test fails naming any it leaves out). It is valid for pkg/config
// too: the two profiles refer to each other, the Docker environment
// carries its container, one MCP server runs a command and the other
// speaks to a URL.
const optionSample = `{
  profiles = {
    { name = "a", provider = "anthropic", model = "claude-sonnet-4-5", baseUrl = "https://proxy.example.com",
      apiKeyEnvVar = "MY_KEY", maxTokens = 4096, idleTimeout = 90,
      pricing = { input = 3, output = 15, cacheRead = 0.3, cacheWrite = 3.75 },
      thinking = { budgetTokens = 2048 }, contextWindow = 100000, compactAt = 0.7, compactProfile = "o" },
    { name = "o", provider = "openai", model = "o3", reasoningEffort = "low", images = false },
  },
  sidebar = { position = "left", width = 0.3, height = 20, inputHeight = 6 },
  keymaps = {
    global = { toggle = "<leader>xt", new_thread = "<leader>xn", threads = "<leader>xl", abort = "<leader>xa", add_buffer = "<leader>xb", plan = "<leader>xP" },
    visual = { paste_selection = "<leader>xp", inline_edit = "<leader>xi" },
    inline = { accept = "ga", reject = "gd" },
    input = { send = "<CR>", send_insert = "<C-s>" },
    sidebar = { close = "q", help = "?", insert = { "i", "a" } },
    display = { activate = "<CR>", toggle = "=", approve = "a", deny = "d", always = "A", terminate = "x", terminal = "T" },
  },
  shell = {
    logRoot = "/tmp/magenta-schema-test", maxTimeout = 300, logMaxBytes = 1048576, logQuotaBytes = 104857600, logMaxAgeDays = 3,
    rules = { { command = "npm", subcommands = { "test" }, allowFlags = { "--silent", "--prefix", "--userconfig" }, denyFlags = { "-g" },
                valueFlags = { "--prefix" }, pathFlags = { "--userconfig" }, args = "any" } },
    interactive = "never",
  },
  inline = { completion = true },
  files = { rules = { { path = "/tmp/magenta-schema-files", read = true, write = false, secret = false } } },
  grep = { rgPath = "/usr/bin/rg", download = true },
  subagents = { maxConcurrent = 2, maxDepth = 2, fastProfile = "o",
    agents = { reviewer = { description = "reviews a diff", systemPrompt = "Be terse.", tools = { "get_file" }, profile = "o" } } },
  mcpServers = {
    cmd = { command = "some-mcp-server", args = { "stdio" }, env = { TOKEN = "t" }, cwd = "/tmp", allow = { "*" }, timeout = 30 },
    web = { url = "https://mcp.example.com/mcp", headers = { Authorization = "Bearer x" }, allow = { "get" }, timeout = 60 },
  },
  mcpProjectFile = false,
  hooks = { PreToolUse = { { matcher = "bash_command|mcp__github__.*", hooks = { { type = "command", command = "./check.sh", timeout = 5 } } } } },
  hooksProjectFile = false,
  environment = { type = "docker", container = "dev", context = "default", host = "devbox", cwd = "/work" },
  environments = { gpu = { type = "ssh", host = "gpu-box", cwd = "/srv/app", container = "unused", context = "unused" } },
  threads = { persist = false, maxAge = 30 },
  lsp = { verifyEdits = false, verifyTimeout = 1.5 },
  search = { searxng = { url = "http://127.0.0.1:8888" }, anthropic = true },
  checkpoints = { enabled = false, exclude = { "data/" } },
  sandbox = { enabled = true, network = "allow", allowWrite = { "/tmp/w" }, allowRead = { "~/src" }, env = { "GOPATH" },
              hide = { ".netrc" }, requireApproval = { "make deploy" } },
  systemPrompt = "Be brief.",
  logLevel = "debug",
  host = { binary = "/nonexistent/magenta-host", logFile = "/tmp/magenta-schema-test.log", requestTimeout = 3000 },
}`

// optionPathLua finds an option path in a table of options: locate(opts,
// "profiles[].maxTokens") returns the table holding the first value at
// that path, its key there, and the path as validate.lua names it
// ("profiles[1].maxTokens"); nil when opts has no value there. A list's
// items and a map's entries (in sorted order) are tried in turn.
const optionPathLua = `
local function locate(v, segs, i, where)
  if type(v) ~= "table" then
    return nil
  end
  local seg, keys = segs[i], {}
  if seg == "[]" then
    for k = 1, #v do
      keys[k] = k
    end
  elseif seg == "*" then
    for k in pairs(v) do
      keys[#keys + 1] = k
    end
    table.sort(keys)
  else
    keys[1] = seg
  end
  for _, k in ipairs(keys) do
    local w = type(k) == "number" and string.format("%s[%d]", where, k) or (where == "" and k or where .. "." .. k)
    if i == #segs then
      if v[k] ~= nil then
        return v, k, w
      end
    else
      local p, pk, pw = locate(v[k], segs, i + 1, w)
      if p then
        return p, pk, pw
      end
    end
  end
end
local function segments(path)
  return vim.split(path:gsub("%[%]", ".[]"), ".", { plain = true })
end
local function copy(v)
  if type(v) ~= "table" then
    return v
  end
  local out = {}
  for k, x in pairs(v) do
    out[k] = copy(x)
  end
  return out
end
`

func TestOptionSchemaAgrees(t *testing.T) {
	goPaths := goOptionPaths(t)
	docs := readOptionDocs(t)
	nvimtest.ForEach(t, func(t *testing.T, bin string) {
		n := nvimtest.Start(t, bin)
		n.Serve()
		var raw []map[string]any
		n.LuaResult(&raw, `return require('magenta.validate').schema_paths()`)
		lua := map[string]luaOption{}
		for _, r := range raw {
			o := luaOption{Type: fmt.Sprint(r["type"])}
			if e, ok := r["enum"].([]any); ok {
				o.Enum = e
			}
			lua[fmt.Sprint(r["path"])] = o
		}
		require.NotEmpty(t, lua, "schema_paths() lists the options")
		t.Run("lua-and-go", func(t *testing.T) { compareLuaAndGo(t, lua, goPaths) })
		t.Run("documented", func(t *testing.T) { checkDocumented(t, lua, docs) })
		t.Run("valid", func(t *testing.T) { checkValidValues(t, n, lua, goPaths) })
		t.Run("wrong-types", func(t *testing.T) { checkWrongTypes(t, n, lua, goPaths) })
	})
}

type luaOption struct {
	Type string
	Enum []any
}

// allowed returns the reason path is in list (by itself or under a
// listed prefix), or "".
func allowed(list map[string]string, path string) string {
	for prefix, reason := range list {
		if path == prefix || strings.HasPrefix(path, prefix+".") || strings.HasPrefix(path, prefix+"[") {
			return reason
		}
	}
	return ""
}

func compareLuaAndGo(t *testing.T, lua map[string]luaOption, goPaths map[string]string) {
	for _, path := range sortedKeys(lua) {
		lt := lua[path].Type
		gt, inGo := goPaths[path]
		if reason := allowed(luaOnlyOptions, path); reason != "" {
			if inGo {
				t.Errorf("option %s is allowed as Lua-only (%s), but pkg/config reads it too: drop it from luaOnlyOptions", path, reason)
			}
			continue
		}
		switch {
		case !inGo:
			t.Errorf("option %s (%s): validate.lua accepts it, pkg/config does not know it", path, lt)
		case lt != gt:
			t.Errorf("option %s: validate.lua says %s, pkg/config says %s", path, lt, gt)
		}
	}
	for _, path := range sortedKeys(goPaths) {
		if _, inLua := lua[path]; !inLua && allowed(goOnlyOptions, path) == "" {
			t.Errorf("option %s (%s): pkg/config reads it, validate.lua does not know it (setup() would refuse it)", path, goPaths[path])
		}
	}
}

// goOptionPaths lists what config.Options decodes, by json tag, in the
// notation of schema_paths().
func goOptionPaths(t *testing.T) map[string]string {
	out := map[string]string{}
	unmarshaler := reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()
	var walk func(path string, typ reflect.Type)
	walk = func(path string, typ reflect.Type) {
		if o, ok := goOptionTypes[path]; ok {
			if rt, ok := o.(reflect.Type); ok {
				typ = rt
			} else {
				out[path] = o.(string)
				return
			}
		}
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		if path != "" && reflect.PointerTo(typ).Implements(unmarshaler) {
			t.Errorf("option %s: %s decodes itself; say what it accepts in goOptionTypes", path, typ)
			return
		}
		switch typ.Kind() {
		case reflect.Struct:
			for i := 0; i < typ.NumField(); i++ {
				f := typ.Field(i)
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if !f.IsExported() || name == "-" {
					continue
				}
				if name == "" {
					t.Errorf("option %s: field %s.%s has no json tag", path, typ, f.Name)
					name = f.Name
				}
				walk(strings.TrimPrefix(path+"."+name, "."), f.Type)
			}
		case reflect.Slice, reflect.Map:
			kind, sub := "list", "[]"
			if typ.Kind() == reflect.Map {
				kind, sub = "map", ".*"
			}
			out[path] = kind
			// Elements that are tables or lists have options of their own
			// (hooks: a map of lists of groups).
			if k := typ.Elem().Kind(); k == reflect.Struct || k == reflect.Slice && typ.Elem().Elem().Kind() == reflect.Struct {
				walk(path+sub, typ.Elem())
			}
		case reflect.String:
			out[path] = "string"
		case reflect.Bool:
			out[path] = "boolean"
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			out[path] = "integer"
		case reflect.Float32, reflect.Float64:
			out[path] = "number"
		default:
			t.Errorf("option %s: no schema type for %s", path, typ)
		}
	}
	walk("", reflect.TypeOf(config.Options{}))
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// checkValidValues feeds optionSample through setup() and the JSON
// for_host() makes of it through the host's checks, and feeds every
// value of every enum the host reads through the host.
func checkValidValues(t *testing.T, n *nvimtest.Nvim, lua map[string]luaOption, goPaths map[string]string) {
	var missing []string
	n.LuaResult(&missing, optionPathLua+`
local sample, missing = `+optionSample+`, {}
for _, p in ipairs(require('magenta.validate').schema_paths()) do
  if not locate(sample, segments(p.path), 1, "") then
    missing[#missing + 1] = p.path
  end
end
return missing`)
	for _, path := range missing {
		t.Errorf("option %s: optionSample has no value for it; add one", path)
	}
	n.Setup(optionSample)
	var forHost string
	n.LuaResult(&forHost, `return require('magenta.config').for_host()`)
	require.NoError(t, host.AcceptOptions([]byte(forHost)), "the host accepts the options of a valid setup(): %s", forHost)

	// Every option both sides know reaches the host.
	for _, path := range sortedKeys(lua) {
		if _, ok := goPaths[path]; ok && len(jsonSlots(t, forHost, path)) == 0 {
			t.Errorf("option %s: setup() accepts it but for_host() does not send it", path)
		}
	}
	for _, path := range sortedKeys(lua) {
		if _, ok := goPaths[path]; !ok {
			continue
		}
		for _, v := range lua[path].Enum {
			if err := acceptsSomewhere(t, forHost, path, v); err != nil {
				t.Errorf("option %s: validate.lua allows %v, the host refuses it: %v", path, v, err)
			}
		}
	}
}

// acceptsSomewhere puts v at path in the options JSON and asks the host;
// nil when one of the places path names (each profile, each server…)
// takes it, as is, or alone in its table (environment.type = "local"
// must not keep the container of the Docker sample).
func acceptsSomewhere(t *testing.T, options, path string, v any) error {
	var last error
	for _, alone := range []bool{false, true} {
		for i := range jsonSlots(t, options, path) {
			root := decodeJSON(t, options) // a fresh copy for each try
			s := slotIn(root, path, i)
			if m, ok := s.parent.(map[string]any); ok && alone {
				for k := range m {
					delete(m, k)
				}
			}
			s.set(v)
			data, err := json.Marshal(root)
			require.NoError(t, err)
			if last = host.AcceptOptions(data); last == nil {
				return nil
			}
		}
	}
	return last
}

// checkWrongTypes gives every option, one at a time, a value of a type
// it does not take: validate.lua must name the option, and the host must
// either never see the value (Lua dropped it) or refuse the options. The
// host must refuse the value on its own too, put straight into the JSON.
func checkWrongTypes(t *testing.T, n *nvimtest.Nvim, lua map[string]luaOption, goPaths map[string]string) {
	n.Setup(optionSample)
	var valid string
	n.LuaResult(&valid, `return require('magenta.config').for_host()`)
	for _, path := range sortedKeys(lua) {
		typ := lua[path].Type
		wrongs := []any{"wrong-type"}
		if strings.Contains(typ, "string") {
			wrongs = []any{424242}
		}
		if strings.Contains(typ, "integer") {
			wrongs = append(wrongs, 4242.5)
		}
		for _, wrong := range wrongs {
			var res struct {
				Where   string `msgpack:"where"`
				Msg     string `msgpack:"msg"`
				ForHost string `msgpack:"for_host"`
			}
			n.LuaResult(&res, optionPathLua+`
local path, wrong = ...
local opts = copy(`+optionSample+`)
local parent, key, where = locate(opts, segments(path), 1, "")
parent[key] = wrong
local config = require('magenta.config')
local _, msg = config.set(opts)
return { where = where, msg = msg or "", for_host = config.for_host() }`, path, wrong)
			assert.Contains(t, res.Msg, "'"+res.Where+"'", "setup() names %s = %v", path, wrong)
			if err := host.AcceptOptions([]byte(res.ForHost)); err == nil {
				marker, _ := json.Marshal(wrong)
				assert.NotContains(t, res.ForHost, string(marker), "%s = %v: Lua dropped it or the host refuses it", path, wrong)
			}
			if _, ok := goPaths[path]; !ok {
				continue
			}
			root := decodeJSON(t, valid)
			s := slotIn(root, path, 0)
			if s.parent == nil {
				continue // reported by checkValidValues: for_host() does not send it
			}
			s.set(wrong)
			data, err := json.Marshal(root)
			require.NoError(t, err)
			assert.Error(t, host.AcceptOptions(data), "the host refuses %s = %v", path, wrong)
		}
	}
	n.Setup(optionSample)
}

// slot is one place in decoded JSON: a key of an object or an index of
// an array.
type slot struct {
	parent any // map[string]any or []any
	key    any // string or int
}

func (s slot) get() any {
	if m, ok := s.parent.(map[string]any); ok {
		return m[s.key.(string)]
	}
	return s.parent.([]any)[s.key.(int)]
}

func (s slot) set(v any) {
	if m, ok := s.parent.(map[string]any); ok {
		m[s.key.(string)] = v
		return
	}
	s.parent.([]any)[s.key.(int)] = v
}

func decodeJSON(t *testing.T, data string) any {
	dec := json.NewDecoder(bytes.NewReader([]byte(data)))
	dec.UseNumber() // keeps 4096 an integer when encoded again
	var v any
	require.NoError(t, dec.Decode(&v))
	return v
}

// jsonSlots lists the places path names in the JSON options.
func jsonSlots(t *testing.T, data, path string) []slot {
	return slots(decodeJSON(t, data), pathSegments(path))
}

// slotIn is the i-th place path names in root; a zero slot when there
// are not that many.
func slotIn(root any, path string, i int) slot {
	all := slots(root, pathSegments(path))
	if i >= len(all) {
		return slot{}
	}
	return all[i]
}

func pathSegments(path string) []string {
	return strings.Split(strings.ReplaceAll(path, "[]", ".[]"), ".")
}

func slots(v any, segs []string) []slot {
	var here []slot
	switch c := v.(type) {
	case map[string]any:
		if segs[0] == "*" {
			for _, k := range sortedKeys(c) {
				here = append(here, slot{c, k})
			}
		} else if _, ok := c[segs[0]]; ok {
			here = append(here, slot{c, segs[0]})
		}
	case []any:
		if segs[0] == "[]" {
			for i := range c {
				here = append(here, slot{c, i})
			}
		}
	}
	if len(segs) == 1 {
		return here
	}
	var out []slot
	for _, s := range here {
		out = append(out, slots(s.get(), segs[1:])...)
	}
	return out
}

// optionDoc is an entry of doc/magenta.txt that documents options: the
// option paths it is headed by, and its text.
type optionDoc struct {
	names []string
	words map[string]bool
}

var (
	docTag     = regexp.MustCompile(`\*(magenta-[A-Za-z0-9_.-]+)\*`)
	docLink    = regexp.MustCompile(`\|(magenta-[A-Za-z0-9_.-]+)\|`)
	docHeading = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*,?$`)
	docWord    = regexp.MustCompile(`[A-Za-z0-9_]+`)
)

// readOptionDocs reads the entries that document options. The rule:
//
//   - In the options section (from *magenta-options* to the next ====
//     line), a line that starts in the first column with an option path
//     ("shell.maxTimeout", "sandbox.enabled, sandbox.network,") heads an
//     entry; its text is the indented lines below it, up to the next
//     such line. Heading lines in a row share the text below them.
//   - Elsewhere, a tag *magenta-options-NAME* heads an entry for NAME
//     whose text runs to the next line with a tag, or the next ====.
//   - An entry's text takes in the text of the sections its
//     |magenta-…| links name (one level), so "shell.rules … see
//     |magenta-shell-rules|" documents the keys of a rule.
//
// An option is documented by an entry headed by its path, or by an entry
// headed by one of its parents whose text names every key below that
// parent as a word ("profiles" documents profiles[].pricing.cacheRead
// when its text says pricing and cacheRead). List items ([]) and map
// entries (*) are named by the user and need no words.
func readOptionDocs(t *testing.T) []optionDoc {
	data, err := os.ReadFile(filepath.Join(nvimtest.Root(), "doc", "magenta.txt"))
	require.NoError(t, err)
	lines := strings.Split(string(data), "\n")
	section := func(tag string) string {
		var out []string
		for i, line := range lines {
			if !strings.Contains(line, "*"+tag+"*") {
				continue
			}
			j := i + 1
			for j < len(lines) && docTag.MatchString(lines[j]) {
				j++ // tags in a row name the same text
			}
			out = append(out, line)
			for ; j < len(lines) && !docTag.MatchString(lines[j]) && !strings.HasPrefix(lines[j], "===="); j++ {
				out = append(out, lines[j])
			}
		}
		return strings.Join(out, "\n")
	}
	entry := func(names []string, text string) optionDoc {
		for _, l := range docLink.FindAllStringSubmatch(text, -1) {
			text += "\n" + section(l[1])
		}
		words := map[string]bool{}
		for _, w := range docWord.FindAllString(text, -1) {
			words[w] = true
		}
		return optionDoc{names: names, words: words}
	}

	var docs []optionDoc
	start := -1
	for i, line := range lines {
		if strings.Contains(line, "*magenta-options*") {
			start = i + 1
			break
		}
	}
	require.GreaterOrEqual(t, start, 0, "doc/magenta.txt has *magenta-options*")
	end := start
	for end < len(lines) && !strings.HasPrefix(lines[end], "====") {
		end++
	}
	var names []string
	var body []string
	flush := func() {
		if len(names) > 0 {
			docs = append(docs, entry(names, strings.Join(body, "\n")))
		}
		names, body = nil, nil
	}
	for _, line := range lines[start:end] {
		if heading := docHeadingNames(line); heading != nil {
			if len(body) > 0 {
				flush()
			}
			names = append(names, heading...)
			continue
		}
		body = append(body, line)
	}
	flush()
	for i, line := range lines {
		if i >= start && i < end {
			continue
		}
		for _, m := range docTag.FindAllStringSubmatch(line, -1) {
			if name, ok := strings.CutPrefix(m[1], "magenta-options-"); ok {
				docs = append(docs, entry([]string{name}, section(m[1])))
			}
		}
	}
	return docs
}

// docHeadingNames returns the option paths a line of the options section
// is headed by, or nil when it is not a heading.
func docHeadingNames(line string) []string {
	if line == "" || line[0] == ' ' || line[0] == '\t' {
		return nil
	}
	var names []string
	for _, f := range strings.Fields(line) {
		if docTag.MatchString(f) {
			break
		}
		if !docHeading.MatchString(f) {
			return nil
		}
		names = append(names, strings.TrimSuffix(f, ","))
	}
	return names
}

// docKeys is path as the docs name it: "profiles[].pricing.input" is
// profiles, pricing, input.
func docKeys(path string) []string {
	var keys []string
	for _, s := range pathSegments(path) {
		if s != "[]" && s != "*" {
			keys = append(keys, s)
		}
	}
	return keys
}

func checkDocumented(t *testing.T, lua map[string]luaOption, docs []optionDoc) {
	known := map[string]bool{} // every option path and its parents, as the docs name them
	for path := range lua {
		keys := docKeys(path)
		for i := range keys {
			known[strings.Join(keys[:i+1], ".")] = true
		}
	}
	for _, path := range sortedKeys(lua) {
		if !documented(docKeys(path), docs) {
			t.Errorf("option %s is not documented in doc/magenta.txt (*magenta-options*)", path)
		}
	}
	for _, d := range docs {
		for _, name := range d.names {
			if !known[name] {
				t.Errorf("doc/magenta.txt documents %s, which validate.lua does not know", name)
			}
		}
	}
}

func documented(keys []string, docs []optionDoc) bool {
	for _, d := range docs {
		for _, name := range d.names {
			head := strings.Split(name, ".")
			if len(head) > len(keys) || strings.Join(keys[:len(head)], ".") != name {
				continue
			}
			ok := true
			for _, k := range keys[len(head):] {
				ok = ok && d.words[k]
			}
			if ok {
				return true
			}
		}
	}
	return false
}
