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
  maxTokens = "number",
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
  thinking = { _required = { "budgetTokens" }, budgetTokens = "number" },
  reasoningEffort = { enum = { "low", "medium", "high" } },
  -- Compaction (:help magenta-compaction).
  contextWindow = "number",
  compactAt = "number",
  compactProfile = "string",
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
local agent_schema = { description = "string", systemPrompt = "string", tools = "strings", profile = "string" }

local schema = {
  profiles = { list = profile_schema },
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
    },
    visual = { _or_false = true, paste_selection = keymap, inline_edit = keymap },
    inline = { _or_false = true, accept = keymap, reject = keymap },
    input = { _or_false = true, send = keymap },
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
    logMaxBytes = "number",
    logQuotaBytes = "number",
    logMaxAgeDays = "number",
    rules = { list = rule_schema, allow_empty = true },
    interactive = { enum = { "model", "always", "never" } },
  },
  files = { rules = { list = file_rule_schema, allow_empty = true } },
  grep = { rgPath = "string", download = "boolean" },
  subagents = {
    maxConcurrent = "number",
    maxDepth = "number",
    fastProfile = "string",
    agents = { map = agent_schema, required = { "description" } },
  },
  mcpServers = { map = mcp_server_schema, check = check_mcp_server },
  mcpProjectFile = "boolean",
  environment = {
    type = { enum = { "local", "docker" } },
    container = "string",
    cwd = "string",
  },
  threads = { persist = "boolean", maxAge = "number" },
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
      local want = spec:gsub("strings", "a list of strings"):gsub("price", "a non-negative number"):gsub("|", " or ")
      local got = type(value)
      if spec == "price" and got == "number" then
        got = tostring(value) -- a negative price: say which
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
    return bad("option '%s' must be one of %s, got %s", path, table.concat(names, ", "), vim.inspect(value))
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
    -- A list is kept only when every item is valid: half a list of
    -- profiles or rules would silently change what the user asked for.
    local before = #problems
    for i, item in ipairs(value) do
      local item_path = string.format("%s[%d]", path, i)
      clean(item_path, spec.list, item, problems)
      local required = (spec.list == profile_schema and required_profile_keys)
        or (spec.list == rule_schema and { "command" })
        or (spec.list == file_rule_schema and { "path" })
        or {}
      if type(item) == "table" then
        for _, key in ipairs(required) do
          if item[key] == nil then
            bad("option '%s.%s' is required", item_path, key)
          end
        end
      end
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
      bad("unknown option '%s'", sub_path)
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

return M
