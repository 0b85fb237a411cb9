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

--- Validates user options; returns an error message or nil. The schema
--- lives in magenta.validate, loaded only when there are options to check.
function M.validate(opts)
  if opts == nil then
    return nil
  end
  return require("magenta.validate").check(opts)
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
