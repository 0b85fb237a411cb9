-- Options: documented defaults, validation that names the offending key,
-- and the part of the options the host reads (as JSON, so Lua's
-- empty-table ambiguity never reaches Go).
local M = {}

M.defaults = {
  profiles = {
    {
      name = "claude-sonnet",
      provider = "anthropic",
      model = "claude-sonnet-4-5",
      apiKeyEnvVar = "ANTHROPIC_API_KEY",
    },
  },
  sidebar = {
    position = "right", -- "left", "right", "above", "below" or "tab"
    width = 0.4, -- columns, or a fraction of the editor (left / right)
    height = 0.4, -- lines, or a fraction of the editor (above / below)
    inputHeight = 8, -- lines of the input window
  },
  keymaps = {
    global = {
      toggle = "<leader>mt",
      new_thread = "<leader>mn",
      threads = "<leader>ml",
      abort = "<leader>ma",
      add_buffer = "<leader>mb", -- attach the current buffer as a context file
    },
    input = { send = "<CR>" },
    display = {
      activate = "<CR>", -- press the button / open the item under the cursor
      toggle = "=", -- expand or collapse a tool call
      approve = "a", -- approve the request under the cursor (or the oldest)
      deny = "d",
      always = "A", -- approve and remember the exact command for the session
      terminate = "x", -- stop the running tool call under the cursor
    },
  },
  shell = {
    logRoot = "/tmp/magenta", -- command logs: <logRoot>/threads/<thread>/tools/<call>/bashCommand.log
    maxTimeout = 600, -- seconds: the most a bash_command call may ask for
    rules = {}, -- extra permission rules, see :help magenta-shell-rules
  },
  files = {
    -- Extra path rules for the file tools: { path = "/abs/dir", read = true,
    -- write = false, secret = false }. read/write allow without asking at or
    -- below path; secret makes even reads ask.
    rules = {},
  },
  grep = {
    rgPath = nil, -- ripgrep to use; default: rg on PATH, else a managed copy
    download = false, -- when no rg is found, download the pinned ripgrep into stdpath("data")/magenta/ripgrep
  },
  systemPrompt = nil,
  logLevel = "info",
  host = {
    binary = nil, -- default: <plugin>/bin/magenta-host
    logFile = nil, -- default: stdpath("log") (or "cache" on 0.7)/magenta.log
  },
}

-- The shape of the options: a type name per key; tables describe nested
-- tables; `list` describes every element of a list.
local profile_schema = {
  name = "string",
  provider = { enum = { "anthropic", "openai" } },
  model = "string",
  baseUrl = "string",
  apiKeyEnvVar = "string",
  maxTokens = "number",
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
    input = { _or_false = true, send = keymap },
    display = {
      _or_false = true,
      activate = keymap,
      toggle = keymap,
      approve = keymap,
      deny = keymap,
      always = keymap,
      terminate = keymap,
    },
  },
  shell = {
    logRoot = "string",
    maxTimeout = "number",
    rules = { list = rule_schema, allow_empty = true },
  },
  files = { rules = { list = file_rule_schema, allow_empty = true } },
  grep = { rgPath = "string", download = "boolean" },
  systemPrompt = "string",
  logLevel = { enum = { "debug", "info", "warn", "error" } },
  host = { binary = "string", logFile = "string" },
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
    if type(value) == t then
      return true
    end
  end
  return false
end

local function check(path, spec, value)
  if type(spec) == "string" then
    if not type_ok(spec, value) then
      local want = spec:gsub("strings", "a list of strings"):gsub("|", " or ")
      return string.format("option '%s' must be %s, got %s", path, want, type(value))
    end
    return nil
  end
  if spec.enum then
    for _, v in ipairs(spec.enum) do
      if v == value then
        return nil
      end
    end
    return string.format("option '%s' must be one of %s, got %s", path, table.concat(spec.enum, ", "), vim.inspect(value))
  end
  if value == false and spec._or_false then
    return nil
  end
  if type(value) ~= "table" then
    return string.format("option '%s' must be a table, got %s", path, type(value))
  end
  if spec.list then
    if #value == 0 and spec.allow_empty and next(value) == nil then
      return nil
    end
    if #value == 0 then
      return string.format("option '%s' must be a non-empty list", path)
    end
    for k in pairs(value) do
      if type(k) ~= "number" then
        return string.format("option '%s' must be a list, but has the key '%s'", path, tostring(k))
      end
    end
    for i, item in ipairs(value) do
      local err = check(string.format("%s[%d]", path, i), spec.list, item)
      if err then
        return err
      end
      local required = (spec.list == profile_schema and required_profile_keys)
        or (spec.list == rule_schema and { "command" })
        or (spec.list == file_rule_schema and { "path" })
        or {}
      for _, key in ipairs(required) do
        if item[key] == nil then
          return string.format("option '%s[%d].%s' is required", path, i, key)
        end
      end
    end
    return nil
  end
  for k, v in pairs(value) do
    local sub = spec[k]
    if sub == nil or k == "_or_false" then
      return string.format("unknown option '%s%s'", path == "" and "" or path .. ".", tostring(k))
    end
    local err = check(path == "" and k or path .. "." .. k, sub, v)
    if err then
      return err
    end
  end
  return nil
end

--- Validates user options; returns an error message or nil.
function M.validate(opts)
  if opts == nil then
    return nil
  end
  return check("", schema, opts)
end

-- A plain copy of option tables (no metatables or cycles in options;
-- vim.deepcopy's generality costs a measurable part of setup()).
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

-- A list replaces the default list; a dictionary is merged key by key.
local function merge(defaults, user)
  if user == nil then
    return copy(defaults)
  end
  if type(user) ~= "table" or type(defaults) ~= "table" or #user > 0 then
    return copy(user)
  end
  local out = {}
  for k, v in pairs(defaults) do
    out[k] = merge(v, user[k])
  end
  for k, v in pairs(user) do
    if defaults[k] == nil then
      out[k] = copy(v)
    end
  end
  return out
end

-- Read-only until set() builds the merged copy.
M.options = M.defaults

--- Validates and merges opts over the defaults. Returns nil and an error
--- message when they are invalid (the previous options stay).
function M.set(opts)
  local err = M.validate(opts)
  if err then
    return nil, "magenta: " .. err
  end
  M.options = merge(M.defaults, opts or {})
  return M.options
end

--- The options the host uses, JSON-encoded.
function M.for_host()
  local o = M.options
  local shell = o.shell or {}
  local rules = shell.rules
  if rules ~= nil and next(rules) == nil then
    rules = nil -- omitted: an empty Lua table would encode as {} instead of []
  end
  return vim.json.encode({
    profiles = o.profiles,
    systemPrompt = o.systemPrompt,
    logLevel = o.logLevel,
    shell = { logRoot = shell.logRoot, maxTimeout = shell.maxTimeout, rules = rules },
    grep = o.grep,
    -- Omitted when empty: an empty Lua table would encode as [].
    files = (o.files and o.files.rules and next(o.files.rules)) and { rules = o.files.rules } or nil,
  })
end

function M.profile_names()
  local names = {}
  for _, p in ipairs(M.options.profiles) do
    names[#names + 1] = p.name
  end
  return names
end

return M
