-- The shape of magenta's options and the checker that names the first
-- problem. Separate from magenta.config so that setup() without options
-- does not compile it.
local M = {}

-- The shape of the options: a type name per key; tables describe nested
-- tables; `list` describes every element of a list.
local profile_schema = {
  name = "string",
  provider = { enum = { "anthropic", "openai" } },
  model = "string",
  baseUrl = "string",
  apiKeyEnvVar = "string",
  maxTokens = "integer",
  idleTimeout = "number",
  -- USD per million tokens; input and output are required, a cache price
  -- left out costs as input.
  pricing = {
    _required = { "input", "output" },
    input = "price",
    output = "price",
    cacheRead = "price",
    cacheWrite = "price",
  },
  -- Anthropic extended thinking; OpenAI-compatible reasoning effort.
  thinking = { _required = { "budgetTokens" }, budgetTokens = "integer" },
  reasoningEffort = { enum = { "low", "medium", "high" } },
  -- Compaction (:help magenta-compaction).
  contextWindow = "integer",
  compactAt = "number",
  compactProfile = "string",
  -- false: the model takes no images (:help magenta-images).
  images = "boolean",
}
local required_profile_keys = { "name", "provider", "model" }
local file_rule_schema = { path = "string", read = "boolean", write = "boolean", secret = "boolean" }
local rule_schema = {
  command = "string",
  subcommands = "strings",
  allowFlags = "strings",
  denyFlags = "strings",
  valueFlags = "strings",
  pathFlags = "strings",
  args = { enum = { "none", "any", "read-paths", "write-paths", "pattern-then-read-paths" } },
}
local keymap = "string|false"
local mcp_server_schema = {
  command = "string",
  args = "strings",
  env = { map = "string" },
  cwd = "string",
  url = "string",
  headers = { map = "string" },
  allow = "strings",
  timeout = "number",
}
-- A server runs a command or speaks to a URL, never both.
local function check_mcp_server(item)
  if (item.command == nil) == (item.url == nil) then
    return "needs either command or url"
  end
  return nil
end
-- Hooks in Claude Code's settings shape (:help magenta-hooks): event name →
-- list of { matcher, hooks = { { type = "command", command, timeout } } }.
-- Event names and matchers are checked by the host (pkg/hooks).
local hook_handler_schema = { _required = { "command" }, type = { enum = { "command" } }, command = "string", timeout = "number" }
local hook_group_schema = { _required = { "hooks" }, matcher = "string", hooks = { list = hook_handler_schema } }
local agent_schema = { description = "string", systemPrompt = "string", tools = "strings", profile = "string" }

local schema = {
  -- A bad profile is left out alone (drop_bad_items): dropping the list
  -- would put the default profile (Anthropic's public API) in place of a
  -- proxy the user configured.
  profiles = { list = profile_schema, drop_bad_items = true },
  sidebar = {
    position = { enum = { "left", "right", "above", "below", "tab" } },
    width = "number",
    height = "number",
    inputHeight = "number",
  },
  keymaps = {
    _or_false = true,
    global = {
      _or_false = true,
      toggle = keymap,
      new_thread = keymap,
      threads = keymap,
      abort = keymap,
      add_buffer = keymap,
      plan = keymap,
    },
    visual = { _or_false = true, paste_selection = keymap, inline_edit = keymap },
    inline = { _or_false = true, accept = keymap, reject = keymap },
    input = { _or_false = true, send = keymap, send_insert = keymap },
    sidebar = { _or_false = true, close = keymap, help = keymap, insert = "strings|false" },
    display = {
      _or_false = true,
      activate = keymap,
      toggle = keymap,
      approve = keymap,
      deny = keymap,
      always = keymap,
      terminate = keymap,
      terminal = keymap,
    },
  },
  shell = {
    logRoot = "string",
    maxTimeout = "number",
    logMaxBytes = "integer",
    logQuotaBytes = "integer",
    logMaxAgeDays = "number",
    rules = { list = rule_schema, allow_empty = true },
    interactive = { enum = { "model", "always", "never" } },
  },
  inline = { completion = "boolean" },
  files = { rules = { list = file_rule_schema, allow_empty = true } },
  grep = { rgPath = "string", download = "boolean" },
  subagents = {
    maxConcurrent = "integer",
    maxDepth = "integer",
    fastProfile = "string",
    agents = { map = agent_schema, required = { "description" } },
  },
  mcpServers = { map = mcp_server_schema, check = check_mcp_server },
  mcpProjectFile = "boolean",
  hooks = { map = { list = hook_group_schema } },
  hooksProjectFile = "boolean",
  environment = {
    type = { enum = { "local", "docker", "ssh" } },
    container = "string",
    context = "string",
    host = "string",
    cwd = "string",
  },
  threads = { persist = "boolean", maxAge = "number" },
  checkpoints = { enabled = "boolean", exclude = "strings" },
  lsp = { verifyEdits = "boolean", verifyTimeout = "number" },
  -- web_search's back ends (:help magenta-web-search).
  search = { searxng = { _required = { "url" }, url = "string" }, anthropic = "boolean" },
  sandbox = {
    enabled = { enum = { "auto", true, false } },
    network = { enum = { "deny", "allow" } },
    allowWrite = "strings",
    allowRead = "strings",
    env = "strings",
    hide = "strings",
    requireApproval = "strings",
  },
  systemPrompt = "string",
  logLevel = { enum = { "debug", "info", "warn", "error" } },
  host = { binary = "string", logFile = "string", requestTimeout = "number" },
}
-- Named environments spawn_subagents may send a sub-agent to without
-- asking (:help magenta-options-environments): each entry is checked as the
-- environment option is.
schema.environments = { map = schema.environment }

-- The edit distance between a and b: insertions, deletions,
-- substitutions and swaps of two neighbours (sned for send) cost one;
-- letter case is ignored, so baseURL for baseUrl costs nothing.
local function distance(a, b)
  a, b = a:lower(), b:lower()
  local d = {}
  for i = 0, #a do
    d[i] = { [0] = i }
  end
  for j = 1, #b do
    d[0][j] = j
  end
  for i = 1, #a do
    for j = 1, #b do
      local cost = a:sub(i, i) == b:sub(j, j) and 0 or 1
      d[i][j] = math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
      if i > 1 and j > 1 and a:sub(i, i) == b:sub(j - 1, j - 1) and a:sub(i - 1, i - 1) == b:sub(j, j) then
        d[i][j] = math.min(d[i][j], d[i - 2][j - 2] + 1)
      end
    end
  end
  return d[#a][#b]
end

--- The candidate nearest to name, when it is near enough to be the
--- intended one (a third of the letters wrong, at least one allowed);
--- nil otherwise. Ties go to the first in sorted order.
function M.nearest(name, candidates)
  if type(name) ~= "string" or name == "" then
    return nil
  end
  local best, best_d
  local sorted = vim.list_slice(candidates, 1, #candidates)
  table.sort(sorted)
  for _, c in ipairs(sorted) do
    local d = distance(name, c)
    if d < (best_d or math.huge) then
      best, best_d = c, d
    end
  end
  if best and best ~= name and best_d <= math.max(1, math.floor(#name / 3)) and best_d < #name then
    return best
  end
  return nil
end

-- " (did you mean 'x'?)" when a candidate is near name, else "".
local function did_you_mean(name, candidates)
  local near = M.nearest(name, candidates)
  return near and string.format(" (did you mean '%s'?)", near) or ""
end

local function is_string_list(value)
  if type(value) ~= "table" then
    return false
  end
  local n = 0
  for _ in pairs(value) do
    n = n + 1
  end
  for i = 1, n do
    if type(value[i]) ~= "string" then
      return false
    end
  end
  return true
end

local function type_ok(expected, value)
  for t in expected:gmatch("[^|]+") do
    if t == "strings" and is_string_list(value) then
      return true
    end
    if t == "false" and value == false then
      return true
    end
    if t == "price" and type(value) == "number" and value >= 0 and value < math.huge then
      return true
    end
    -- The host decodes these into Go ints, which refuse 1.5: the whole
    -- options would be rejected, not just this one.
    if t == "integer" and type(value) == "number" and value == math.floor(value) and math.abs(value) < math.huge then
      return true
    end
    if type(value) == t then
      return true
    end
  end
  return false
end

-- Checks one value against its spec. Returns the value to keep (a table
-- keeps only its valid keys) or nil when it must be dropped; every problem
-- found is appended to `problems`, so one message can name them all.
local function clean(path, spec, value, problems)
  local function bad(fmt, ...)
    problems[#problems + 1] = string.format(fmt, ...)
    return nil
  end
  if type(spec) == "string" then
    if not type_ok(spec, value) then
      local want = spec:gsub("strings", "a list of strings")
        :gsub("price", "a non-negative number")
        :gsub("integer", "a whole number")
        :gsub("|", " or ")
      local got = type(value)
      if (spec == "price" or spec == "integer") and got == "number" then
        got = tostring(value) -- a negative price or a fraction: say which
      end
      return bad("option '%s' must be %s, got %s", path, want, got)
    end
    return value
  end
  if spec.enum then
    for _, v in ipairs(spec.enum) do
      if v == value then
        return value
      end
    end
    local names = {}
    for i, v in ipairs(spec.enum) do
      names[i] = tostring(v)
    end
    return bad(
      "option '%s' must be one of %s, got %s%s",
      path,
      table.concat(names, ", "),
      vim.inspect(value),
      did_you_mean(value, names)
    )
  end
  if value == false and spec._or_false then
    return value
  end
  if type(value) ~= "table" then
    if path == "" then
      return bad("setup() takes a table of options, got %s", type(value))
    end
    return bad("option '%s' must be a table, got %s", path, type(value))
  end
  if spec.map then
    -- A dictionary of user-named entries (sub-agent types): each must be
    -- valid whole, or it is dropped and named.
    local out = {}
    for k, item in pairs(value) do
      local item_path = path .. "." .. tostring(k)
      if type(k) ~= "string" then
        bad("option '%s' must be a table keyed by name, but has the key %s", path, tostring(k))
      else
        local before = #problems
        local kept = clean(item_path, spec.map, item, problems)
        if type(item) == "table" then
          for _, key in ipairs(spec.required or {}) do
            if item[key] == nil then
              bad("option '%s.%s' is required", item_path, key)
            end
          end
          local problem = spec.check and spec.check(item)
          if problem then
            bad("option '%s' %s", item_path, problem)
          end
        end
        if #problems == before then
          out[k] = kept
        end
      end
    end
    return out
  end
  if spec.list then
    if #value == 0 and spec.allow_empty and next(value) == nil then
      return value
    end
    if #value == 0 then
      return bad("option '%s' must be a non-empty list", path)
    end
    for k in pairs(value) do
      if type(k) ~= "number" then
        return bad("option '%s' must be a list, but has the key '%s'", path, tostring(k))
      end
    end
    -- A list of rules is kept only when every item is valid: half a list
    -- would silently change what the user asked for. Profiles
    -- (drop_bad_items) lose only their bad items, each named.
    local before = #problems
    local kept = {}
    for i, item in ipairs(value) do
      local item_path = string.format("%s[%d]", path, i)
      local item_problems = spec.drop_bad_items and {} or problems
      clean(item_path, spec.list, item, item_problems)
      local required = (spec.list == profile_schema and required_profile_keys)
        or (spec.list == rule_schema and { "command" })
        or (spec.list == file_rule_schema and { "path" })
        or {}
      if type(item) == "table" then
        for _, key in ipairs(required) do
          if item[key] == nil then
            item_problems[#item_problems + 1] = string.format("option '%s.%s' is required", item_path, key)
          end
        end
      end
      if spec.drop_bad_items and #item_problems > 0 then
        local name = type(item) == "table" and type(item.name) == "string" and string.format("profile %q (%s)", item.name, item_path)
          or item_path
        table.sort(item_problems)
        bad("%s is left out: %s", name, table.concat(item_problems, ", "))
      elseif spec.drop_bad_items then
        kept[#kept + 1] = item
      end
    end
    if spec.drop_bad_items then
      return kept
    end
    if #problems > before then
      return nil
    end
    return value
  end
  local out = {}
  for _, key in ipairs(spec._required or {}) do
    if value[key] == nil then
      bad("option '%s.%s' is required", path, key)
    end
  end
  for k, v in pairs(value) do
    local sub = spec[k]
    local sub_path = path == "" and tostring(k) or path .. "." .. tostring(k)
    if sub == nil or k == "_or_false" or k == "_required" then
      local names = {}
      for name in pairs(spec) do
        if type(name) == "string" and name:sub(1, 1) ~= "_" then
          names[#names + 1] = name
        end
      end
      bad("unknown option '%s'%s", sub_path, did_you_mean(type(k) == "string" and k or nil, names))
    else
      out[k] = clean(sub_path, sub, v, problems)
    end
  end
  return out
end

--- Checks opts. Returns the options to use (invalid ones dropped, so the
--- defaults apply to them) and the list of problems, in a stable order.
function M.check(opts)
  local problems = {}
  local kept = clean("", schema, opts, problems)
  table.sort(problems)
  return kept or {}, problems
end

--- Every option the schema knows, sorted by path, for the test that holds
--- this schema, pkg/config and doc/magenta.txt together
--- (pkg/host/options_schema_test.go): { path = "profiles[].maxTokens",
--- type = "integer", enum = nil }. A list's items are "[]", a map's
--- entries "*"; a type is string, number, integer, boolean, false, list
--- or map, several joined by "|" in sorted order; an enum's type is that
--- of its values.
function M.schema_paths()
  local out = {}
  local function add(path, types, enum)
    local seen, list = {}, {}
    for _, t in ipairs(types) do
      t = ({ strings = "list", price = "number" })[t] or t
      if not seen[t] then
        seen[t], list[#list + 1] = true, t
      end
    end
    table.sort(list)
    out[#out + 1] = { path = path, type = table.concat(list, "|"), enum = enum }
  end
  local function walk(path, spec)
    if type(spec) == "string" then
      local types = {}
      for t in spec:gmatch("[^|]+") do
        types[#types + 1] = t
      end
      return add(path, types)
    end
    if spec.enum then
      local types = {}
      for i, v in ipairs(spec.enum) do
        types[i] = type(v)
      end
      return add(path, types, spec.enum)
    end
    if spec.map or spec.list then
      add(path, { spec.map and "map" or "list" })
      if type(spec.map or spec.list) == "table" then
        walk(path .. (spec.map and ".*" or "[]"), spec.map or spec.list)
      end
      return
    end
    for k, sub in pairs(spec) do
      if type(k) == "string" and k:sub(1, 1) ~= "_" then
        walk(path == "" and k or path .. "." .. k, sub)
      end
    end
  end
  walk("", schema)
  table.sort(out, function(a, b)
    return a.path < b.path
  end)
  return out
end

return M
