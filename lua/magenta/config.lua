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
      -- Optional, USD per million tokens; shows cost next to the token
      -- counts (:help magenta-usage). Left out: tokens only.
      -- pricing = { input = 3, output = 15, cacheRead = 0.3, cacheWrite = 3.75 },
      -- Optional: extended thinking (anthropic; reasoningEffort = "low" |
      -- "medium" | "high" on openai profiles), and compaction: the model's
      -- context window (known models have a default), the share of it
      -- that triggers compaction, and a profile to write the summary.
      -- thinking = { budgetTokens = 8000 },
      -- contextWindow = 200000, compactAt = 0.8, compactProfile = nil,
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
      plan = "<leader>mP", -- plan mode on/off: read-only tools until you approve a plan
    },
    -- Visual mode: act on the selected lines.
    visual = {
      paste_selection = "<leader>mp", -- paste into the chat input (path, lines, fenced)
      inline_edit = "<leader>mi", -- ask for a change, shown as a diff in place
    },
    -- While an inline edit's proposal is shown (buffer-local).
    inline = { accept = "a", reject = "d" },
    input = {
      send = "<CR>", -- normal mode
      send_insert = "<C-s>", -- insert and normal mode
    },
    -- Both sidebar buffers, normal mode (handled in Lua, not by the host).
    sidebar = {
      close = "q", -- close the sidebar
      help = "?", -- show the sidebar's keys as configured
      insert = { "i", "a", "o", "I", "A", "O" }, -- display: go to the input, insert at its end
    },
    display = {
      activate = "<CR>", -- press the button / open the item under the cursor
      toggle = "=", -- expand or collapse a tool call, thinking or a compaction summary
      approve = "a", -- approve the request under the cursor (only there)
      deny = "d",
      always = "A", -- approve and remember the exact command for the session
      terminate = "x", -- stop the running tool call under the cursor
      terminal = "t", -- open an interactive command's terminal (:help magenta-interactive)
    },
  },
  shell = {
    logRoot = "/tmp/magenta", -- command logs: <logRoot>/threads/<thread>/tools/<call>/bashCommand.log
    maxTimeout = 600, -- seconds: the most a bash_command call may ask for
    logMaxBytes = nil, -- one log's cap (default 8 MB, head and tail kept)
    logQuotaBytes = nil, -- all threads' logs (default 1 GB, oldest go first)
    logMaxAgeDays = nil, -- a thread's logs are pruned after (default 7)
    rules = {}, -- extra permission rules, see :help magenta-shell-rules
    interactive = "model", -- "model" | "always" | "never": who decides that a command gets a terminal (:help magenta-interactive)
  },
  inline = {
    completion = false, -- true: keep completion plugins on in the inline-edit prompt (<CR> may then confirm an item first)
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
  subagents = {
    maxConcurrent = 4, -- sub-agents of one thread running at once; the rest queue
    maxDepth = 1, -- 0: no sub-agents; 1: your threads spawn leaves; 2: those spawn too
    fastProfile = nil, -- profile of the "fast" type (default: the parent's)
    -- Your own types: name = { description = "...", systemPrompt = "...",
    -- tools = { "get_file", ... }, profile = "..." }. See :help magenta-subagents.
    agents = {},
  },
  -- Model Context Protocol servers whose tools the model may use, by name:
  -- { command = "...", args = {...}, env = {...}, cwd = "/abs" } or
  -- { url = "https://...", headers = {...} }, each with optional
  -- allow = { "tool", ... } or { "*" } (run without asking) and timeout
  -- (seconds per call). See :help magenta-mcp.
  mcpServers = {},
  -- Read the workspace's .mcp.json (Claude Code's project file) once you
  -- trust it: the sidebar asks YES / NO the first time a thread needs
  -- tools, and again when the file changes. false: never read it.
  mcpProjectFile = true,
  -- Hooks in Claude Code's format, by event: PreToolUse, PostToolUse,
  -- UserPromptSubmit, Stop, SessionStart = { { matcher = "bash_command",
  -- hooks = { { type = "command", command = "...", timeout = 60 } } } }.
  -- See :help magenta-hooks.
  hooks = {},
  -- Run the hooks of the workspace's .claude/settings.json and
  -- settings.local.json once you trust them (asked YES / NO in the
  -- sidebar, again when they change). false: never read them.
  hooksProjectFile = true,
  systemPrompt = nil,
  -- Where new threads work: { type = "local" }, { type = "docker",
  -- container = "dev", cwd = "/work" } (context = "name": a Docker context's
  -- engine; see :help magenta-docker), or { type = "ssh", host = "devbox",
  -- cwd = "/home/me/src" } (see :help magenta-ssh).
  environment = { type = "local" },
  -- Saved threads: stdpath("data")/magenta/threads/<workspace>/ (see
  -- :help magenta-threads).
  threads = {
    persist = true, -- save threads as they change; :Magenta threads lists them
    maxAge = 90, -- days after its last activity a thread is deleted; 0 keeps them forever
  },
  -- Checkpoints of the workspace before each message and around each tool
  -- call that may change files, for :Magenta rewind (see :help magenta-rewind).
  checkpoints = {
    enabled = true,
    exclude = {}, -- gitignore patterns never captured, beside .gitignore and the defaults
  },
  -- web_search's back ends (see :help magenta-web-search): searxng = { url =
  -- "http://127.0.0.1:8888" } (a SearXNG instance, for every provider),
  -- anthropic = true (the Anthropic API's own search, for Anthropic
  -- profiles). With neither, web_search is not offered.
  search = {},
  -- The language servers your configuration attaches (see :help magenta-lsp).
  lsp = {
    verifyEdits = true, -- after edit_file / write_file, tell the model the diagnostics the change introduced or fixed
    verifyTimeout = 3, -- seconds each wait for the servers' report (before the edit, after it) may last
  },
  sandbox = {
    enabled = "auto", -- "auto" | true | false: confine bash_command with bubblewrap (Linux)
    network = "deny", -- "deny" | "allow": network for confined commands
    allowWrite = {}, -- extra writable paths (absolute)
    allowRead = {}, -- extra readable paths (absolute or ~/…): home and sibling projects are hidden
    env = {}, -- extra environment variable names confined commands keep (PATH, HOME, LANG, GOPATH… are kept)
    hide = {}, -- extra hidden paths (absolute or relative to home), beyond ~/.ssh, ~/.aws, …
    requireApproval = {}, -- commands that always ask, beyond the defaults (git push, …)
  },
  logLevel = "info",
  host = {
    binary = nil, -- default: <plugin>/bin/magenta-host
    logFile = nil, -- default: stdpath("log") (or "cache" on 0.7)/magenta.log
    requestTimeout = 5000, -- ms a synchronous request (:checkhealth) waits for the host
  },
}

--- Validates user options. Returns the options to keep (invalid ones
--- dropped) and a list of problems. The schema lives in magenta.validate,
--- loaded only when there are options to check.
function M.validate(opts)
  if opts == nil then
    return {}, {}
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

-- The problems the last set() found, for :checkhealth magenta.
M.problems = {}

--- Validates and merges opts over the defaults. An invalid option never
--- disables the plugin: it is dropped (its default applies) and named.
--- Returns the options and, when there were problems, one message that
--- names every one of them.
function M.set(opts)
  local kept, problems = M.validate(opts)
  M.problems = problems
  M.options = merge(M.defaults, kept)
  -- The default profile stands in only when setup() names no profiles:
  -- in place of a list whose every profile was bad it would send the
  -- user's code to Anthropic's public API instead of their proxy.
  M.no_profile = type(opts) == "table" and opts.profiles ~= nil and (type(kept.profiles) ~= "table" or #kept.profiles == 0)
  if M.no_profile then
    M.options.profiles = {}
  end
  if #problems == 0 then
    return M.options, nil
  end
  local msg = "magenta: " .. table.concat(problems, "; ")
  if #problems > 1 then
    msg = string.format(
      "magenta: %d problems in setup() (bad options are ignored: defaults stand in, bad profiles are left out): %s",
      #problems,
      table.concat(problems, "; ")
    )
  end
  if M.no_profile then
    msg = msg .. ". " .. M.NO_PROFILE
  end
  return M.options, msg
end

M.NO_PROFILE = "No usable profile is left: magenta starts no thread until setup() gets a valid one"
  .. " (the default profile is not used in place of yours)"

--- The error to show when something would start a thread while no
--- profile is usable (every one given to setup() was bad); nil when
--- there is a profile.
function M.no_profile_error()
  if #(M.options.profiles or {}) > 0 then
    return nil
  end
  return "magenta: no usable profile: every profile given to setup() was left out (:checkhealth magenta says why);"
    .. " fix it and call setup() again. The default profile is not used in place of yours."
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
    shell = {
      logRoot = shell.logRoot,
      maxTimeout = shell.maxTimeout,
      logMaxBytes = shell.logMaxBytes,
      logQuotaBytes = shell.logQuotaBytes,
      logMaxAgeDays = shell.logMaxAgeDays,
      rules = rules,
      interactive = shell.interactive,
    },
    grep = o.grep,
    terminalKey = M.terminal_key(o.keymaps),
    displayKeys = M.display_keys(o.keymaps),
    subagents = M.subagents_for_host(o.subagents),
    mcpServers = M.mcp_for_host(o.mcpServers),
    mcpProjectFile = o.mcpProjectFile,
    -- Omitted when empty: an empty Lua table would encode as [].
    hooks = (o.hooks and next(o.hooks)) and o.hooks or nil,
    hooksProjectFile = o.hooksProjectFile,
    environment = o.environment,
    -- Omitted when empty: an empty Lua table would encode as [].
    environments = (o.environments and next(o.environments)) and o.environments or nil,
    threads = o.threads,
    checkpoints = o.checkpoints and {
      enabled = o.checkpoints.enabled,
      -- Omitted when empty: an empty Lua table would encode as {}.
      exclude = (o.checkpoints.exclude and next(o.checkpoints.exclude)) and o.checkpoints.exclude or nil,
    } or nil,
    lsp = o.lsp,
    -- Omitted when empty: an empty Lua table would encode as [].
    search = M.search_for_host(o.search),
    sandbox = o.sandbox and {
      enabled = o.sandbox.enabled,
      network = o.sandbox.network,
      -- Omitted when empty: an empty Lua table would encode as {}.
      allowWrite = (o.sandbox.allowWrite and next(o.sandbox.allowWrite)) and o.sandbox.allowWrite or nil,
      allowRead = (o.sandbox.allowRead and next(o.sandbox.allowRead)) and o.sandbox.allowRead or nil,
      env = (o.sandbox.env and next(o.sandbox.env)) and o.sandbox.env or nil,
      hide = (o.sandbox.hide and next(o.sandbox.hide)) and o.sandbox.hide or nil,
      requireApproval = (o.sandbox.requireApproval and next(o.sandbox.requireApproval)) and o.sandbox.requireApproval or nil,
    } or nil,
    -- Omitted when empty: an empty Lua table would encode as [].
    files = (o.files and o.files.rules and next(o.files.rules)) and { rules = o.files.rules } or nil,
  })
end

-- The search option as the host reads it; nil when nothing is set (an
-- empty Lua table encodes as [] where Go wants an object).
function M.search_for_host(s)
  if type(s) ~= "table" then
    return nil
  end
  local url = type(s.searxng) == "table" and s.searxng.url or nil
  if url == nil and s.anthropic == nil then
    return nil
  end
  return { searxng = url and { url = url } or nil, anthropic = s.anthropic }
end

-- The sub-agent options as the host reads them; empty tables are left
-- out (an empty Lua table encodes as [] where Go wants an object).
function M.subagents_for_host(s)
  if s == nil then
    return nil
  end
  local agents = nil
  if s.agents ~= nil and next(s.agents) ~= nil then
    agents = {}
    for name, a in pairs(s.agents) do
      local tools = a.tools
      if tools ~= nil and next(tools) == nil then
        tools = nil
      end
      agents[name] = { description = a.description, systemPrompt = a.systemPrompt, tools = tools, profile = a.profile }
    end
  end
  return {
    maxConcurrent = s.maxConcurrent,
    maxDepth = s.maxDepth,
    fastProfile = s.fastProfile,
    agents = agents,
  }
end

-- The MCP servers as the host reads them; empty tables are left out (an
-- empty Lua table encodes as {} where Go may want a list, or [] where it
-- wants an object).
function M.mcp_for_host(servers)
  if servers == nil or next(servers) == nil then
    return nil
  end
  local function nonempty(t)
    if t ~= nil and next(t) ~= nil then
      return t
    end
    return nil
  end
  local out = {}
  for name, s in pairs(servers) do
    out[name] = {
      command = s.command,
      args = nonempty(s.args),
      env = nonempty(s.env),
      cwd = s.cwd,
      url = s.url,
      headers = nonempty(s.headers),
      allow = nonempty(s.allow),
      timeout = s.timeout,
    }
  end
  return out
end

-- keymaps.display.terminal as the host names it in hints; "" when the
-- key (or its group) is disabled.
function M.terminal_key(keymaps)
  local display = type(keymaps) == "table" and keymaps.display
  local key = type(display) == "table" and display.terminal
  if type(key) == "string" then
    return key
  end
  return ""
end

-- The display keys an approval block names, as the host reads them; ""
-- for a key (or a group) that is disabled.
function M.display_keys(keymaps)
  local display = type(keymaps) == "table" and keymaps.display
  local out = {}
  for _, name in ipairs({ "activate", "approve", "deny", "always" }) do
    local key = type(display) == "table" and display[name]
    out[name] = type(key) == "string" and key or ""
  end
  return out
end

function M.profile_names()
  local names = {}
  for _, p in ipairs(M.options.profiles) do
    names[#names + 1] = p.name
  end
  return names
end

return M
