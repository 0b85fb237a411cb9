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

--- Returns an error message naming the first problem in opts, or nil.
function M.check(opts)
  return check("", schema, opts)
end

return M

