-- The :Magenta subcommands, loaded on first use so that setup() stays
-- cheap.
local config = require("magenta.config")

local protocol = require("magenta.protocol")
local M = {}

local function sidebar()
  return require("magenta.sidebar")
end

local function host()
  return require("magenta.host")
end

M.subcommands = {
  toggle = function()
    sidebar().toggle()
  end,
  send = function()
    sidebar().send()
  end,
  abort = function()
    -- In a buffer with an inline edit, abort stops that edit.
    if not require("magenta.inline").abort() then
      host().notify(protocol.events.abort)
    end
  end,
  compact = function()
    host().notify(protocol.events.compact)
    sidebar().open()
  end,
  ["paste-selection"] = function(_, cmd)
    local line1, line2 = M.range(cmd)
    require("magenta.selection").paste(line1, line2)
  end,
  ["paste-image"] = function()
    require("magenta.selection").paste_image()
  end,
  ["inline-edit"] = function(_, cmd)
    local line1, line2 = M.range(cmd)
    require("magenta.inline").start(line1, line2)
  end,
  ["new-thread"] = function(args)
    local kind = args[1]
    if kind == nil then
      host().notify(protocol.events.new_thread, { type = "" }) -- the `environment` option's
    elseif kind == "local" then
      host().notify(protocol.events.new_thread, { type = "local" })
    elseif kind == "docker" then
      -- docker [--context {name}] {container} [{cwd}]
      local context, rest = "", vim.list_slice(args, 2)
      if rest[1] == "--context" then
        context, rest = rest[2], vim.list_slice(rest, 3)
      end
      if not context or not rest[1] then
        vim.notify("magenta: :Magenta new-thread docker [--context {name}] {container} [{cwd}]", vim.log.levels.ERROR)
        return
      end
      host().notify(
        protocol.events.new_thread,
        { type = "docker", context = context, container = rest[1], cwd = rest[2] or "" }
      )
    elseif kind == "ssh" then
      if not args[2] then
        vim.notify("magenta: :Magenta new-thread ssh {host} [{dir}]", vim.log.levels.ERROR)
        return
      end
      host().notify(protocol.events.new_thread, { type = "ssh", host = args[2], cwd = args[3] or "" })
    else
      vim.notify(string.format("magenta: unknown environment %q; use local, docker or ssh", kind), vim.log.levels.ERROR)
      return
    end
    sidebar().open()
  end,
  threads = function()
    host().notify(protocol.events.threads)
    sidebar().open()
  end,
  plan = function()
    host().notify(protocol.events.plan)
    sidebar().open()
  end,
  rewind = function(args, cmd)
    require("magenta.rewind").command(args, cmd and cmd.bang)
  end,
  thread = function(args)
    host().notify(protocol.events.thread, { id = args[1] or "" })
    sidebar().open()
  end,
  ["delete-thread"] = function(args, cmd)
    local id = args[1] or ""
    if not (cmd and cmd.bang) then
      local what = id == "" and "the current thread" or ("thread " .. id)
      if vim.fn.confirm("magenta: delete " .. what .. " and its saved history?", "&Yes\n&No", 2) ~= 1 then
        return
      end
    end
    host().notify(protocol.events.delete_thread, { id = id })
  end,
  profile = function(args)
    if not args[1] then
      vim.notify("magenta: :Magenta profile needs a name: " .. table.concat(config.profile_names(), ", "), vim.log.levels.ERROR)
      return
    end
    host().notify(protocol.events.profile, { name = args[1] })
  end,
  ["context-files"] = function(args)
    local paths = {}
    for _, a in ipairs(args) do
      for _, p in ipairs(vim.fn.glob(a, false, true)) do
        paths[#paths + 1] = vim.fn.fnamemodify(p, ":p")
      end
      if #vim.fn.glob(a, false, true) == 0 then
        paths[#paths + 1] = vim.fn.fnamemodify(vim.fn.expand(a), ":p")
      end
    end
    if #paths == 0 then
      vim.notify("magenta: :Magenta context-files needs file paths", vim.log.levels.ERROR)
      return
    end
    host().notify(protocol.events.context_files, { paths = paths })
    sidebar().open()
  end,
  mcp = function()
    vim.notify(table.concat(M.mcp_lines(), "\n"), vim.log.levels.INFO)
  end,
  ["mcp-trust"] = function()
    host().notify(protocol.events.mcp_trust)
  end,
  ["mcp-untrust"] = function()
    host().notify(protocol.events.mcp_untrust)
  end,
  hooks = function()
    vim.notify(table.concat(M.hooks_lines(), "\n"), vim.log.levels.INFO)
  end,
  ["hooks-trust"] = function()
    host().notify(protocol.events.hooks_trust)
  end,
  ["hooks-untrust"] = function()
    host().notify(protocol.events.hooks_untrust)
  end,
  ["add-buffer"] = function()
    local name = vim.api.nvim_buf_get_name(0)
    local why
    if vim.bo.buftype ~= "" then
      why = string.format("it is a %q buffer", vim.bo.buftype)
    elseif name == "" then
      why = "it has no name (write it to a file first)"
    end
    if why then
      vim.notify("magenta: the current buffer is not a file, nothing was added: " .. why, vim.log.levels.ERROR)
      return
    end
    -- attach_files, unlike context_files, has the host say what was added
    -- and to which thread: this opens no sidebar that would show it.
    host().notify(protocol.events.attach_files, { paths = { vim.fn.fnamemodify(name, ":p") } })
  end,
  restart = function()
    host().stop()
  end,
}

local order = {
  "toggle",
  "send",
  "abort",
  "compact",
  "new-thread",
  "threads",
  "thread",
  "delete-thread",
  "rewind",
  "plan",
  "profile",
  "context-files",
  "add-buffer",
  "mcp",
  "mcp-trust",
  "mcp-untrust",
  "hooks",
  "hooks-trust",
  "hooks-untrust",
  "paste-selection",
  "paste-image",
  "inline-edit",
  "restart",
}

-- What :Magenta mcp says about the project file, by its state.
local project_states = {
  trusted = "trusted: its servers run (:Magenta mcp-untrust stops them)",
  untrusted = "not trusted: its servers do not run (:Magenta mcp-trust starts them)",
  waiting = "waiting for your answer in the sidebar (or :Magenta mcp-trust / mcp-untrust)",
  malformed = "malformed, nothing of it runs: ",
  absent = "none in this workspace",
  ["not read"] = "not read yet: read when a thread first needs tools",
  off = "not read (mcpProjectFile = false)",
}

M.MCP_HEADING = "magenta: MCP servers"

--- What :Magenta mcp says: the project file's trust, then each MCP
--- server's source, state, tools, skipped tools and last error (also
--- used by :checkhealth magenta, which passes no_heading: its section
--- already has the heading).
function M.mcp_lines(no_heading)
  local servers = config.options.mcpServers or {}
  if next(servers) == nil and config.options.mcpProjectFile == false then
    return { "magenta: no MCP servers configured (mcpServers in setup(); see :help magenta-mcp)" }
  end
  local status, err = host().request(protocol.requests.mcp)
  if type(status) ~= "table" then
    return { (no_heading and "" or (M.MCP_HEADING .. ": ")) .. "the host did not answer: " .. tostring(err) }
  end
  local project = host().request(protocol.requests.mcp_project)
  local lines = {}
  if not no_heading then
    lines[1] = M.MCP_HEADING
  end
  if type(project) == "table" and project.state ~= "off" then
    local say = project_states[project.state] or tostring(project.state)
    if project.state == "malformed" then
      say = say .. tostring(project.problem)
    end
    lines[#lines + 1] = string.format("  project file %s: %s", tostring(project.file), say)
  end
  if #status == 0 then
    if next(servers) == nil then
      lines[#lines + 1] = "  no servers: none in setup() (mcpServers) and none from a trusted .mcp.json"
    else
      lines[#lines + 1] = "  none started: servers start when a thread first sends a request"
    end
  end
  for _, s in ipairs(status) do
    local pid = (type(s.pid) == "number" and s.pid > 0) and (", pid " .. s.pid) or ""
    local source = s.source == "setup" and "setup()" or tostring(s.source)
    lines[#lines + 1] = string.format("  %s (%s, from %s): %s%s", s.name, s.transport, source, s.state, pid)
    if #s.tools > 0 then
      lines[#lines + 1] = "    tools: " .. table.concat(s.tools, ", ")
    end
    for _, w in ipairs(s.warnings) do
      lines[#lines + 1] = "    skipped: " .. w
    end
    if s.last_error ~= "" then
      local label = s.state == "shadowed" and "    note: " or "    last error: "
      lines[#lines + 1] = label .. s.last_error
    end
  end
  return lines
end

-- What :Magenta hooks says about the workspace's settings, by state.
local hook_file_states = {
  trusted = "trusted: their hooks run (:Magenta hooks-untrust stops them)",
  untrusted = "not trusted: their hooks do not run (:Magenta hooks-trust runs them)",
  waiting = "waiting for your answer in the sidebar (or :Magenta hooks-trust / hooks-untrust)",
  malformed = "malformed, none of their hooks runs: ",
  absent = "no hooks in this workspace",
  ["not read"] = "not read yet: read when you first send a message",
  off = "not read (hooksProjectFile = false)",
}

--- What :Magenta hooks says: every hook (event, matcher, command,
--- timeout, source, whether it runs), where the workspace's
--- .claude/settings*.json stand, and what magenta does not run.
function M.hooks_lines()
  local list, err = host().request(protocol.requests.hooks)
  if type(list) ~= "table" then
    return { "magenta: hooks: the host did not answer: " .. tostring(err) }
  end
  local lines = { "magenta: hooks (:help magenta-hooks)" }
  local project = list.project or {}
  local say = hook_file_states[project.state] or tostring(project.state)
  if project.state == "malformed" then
    say = say .. tostring(project.problem)
  end
  lines[#lines + 1] = "  workspace .claude/settings.json, settings.local.json: " .. say
  if #(list.hooks or {}) == 0 then
    lines[#lines + 1] = "  no hooks: none in setup() (hooks) and none in the workspace's settings"
  end
  for _, h in ipairs(list.hooks or {}) do
    local matcher = ""
    if h.event ~= "UserPromptSubmit" and h.event ~= "Stop" then
      matcher = (h.matcher == "" or h.matcher == "*") and " (every)" or (" " .. h.matcher)
    end
    local source = h.source == "setup" and "setup()" or h.source
    local state = h.active and "runs" or "does not run"
    lines[#lines + 1] = string.format("  %s%s: %s", h.event, matcher, vim.inspect(h.command))
    lines[#lines + 1] = string.format("    from %s, timeout %gs, %s", source, h.timeout, state)
    if h.note ~= "" then
      lines[#lines + 1] = "    note: " .. h.note
    end
  end
  for _, n in ipairs(list.ignored or {}) do
    lines[#lines + 1] = "  not run by magenta: " .. n
  end
  return lines
end

--- The lines a range command was given (nil without a range).
function M.range(cmd)
  if cmd and cmd.range and cmd.range > 0 then
    return cmd.line1, cmd.line2
  end
end

--- Runs a :Magenta subcommand (args as typed, split on white space);
--- :Magenta alone toggles the sidebar.
function M.run(args, cmd)
  local sub = args[1] or "toggle"
  local fn = M.subcommands[sub]
  -- Every profile given to setup() was bad: starting the host would
  -- only fail to attach (and keep failing after setup() is fixed), so
  -- nothing that needs it starts; closing the sidebar still works.
  local no_profile = config.no_profile_error()
  if fn and no_profile and sub ~= "restart" and not (sub == "toggle" and sidebar().is_open()) then
    vim.notify(no_profile, vim.log.levels.ERROR)
    return
  end
  if not fn then
    vim.notify(
      string.format("magenta: unknown subcommand %q; use one of: %s", tostring(sub), table.concat(order, ", ")),
      vim.log.levels.ERROR
    )
    return
  end
  fn(vim.list_slice(args, 2), cmd)
end

function M.complete(arglead, cmdline)
  local words = vim.split(cmdline, "%s+", { trimempty = false })
  local candidates = order
  if #words > 2 and words[2] == "profile" then
    candidates = config.profile_names()
  elseif #words > 2 and words[2] == "context-files" then
    return vim.fn.getcompletion(arglead, "file")
  elseif #words == 3 and words[2] == "new-thread" then
    candidates = { "local", "docker", "ssh" }
  elseif #words >= 4 and #words <= 6 and words[2] == "new-thread" and words[3] == "docker" then
    -- Running containers (of the context after --context) and context
    -- names, from a running host (completion starts none).
    local h = require("magenta.host")
    local function ask(name, payload)
      return h.running() and h.request(name, payload) or {}
    end
    if #words == 4 then
      candidates = ask(protocol.requests.containers)
      table.insert(candidates, "--context")
    elseif words[4] ~= "--context" then
      return {}
    elseif #words == 5 then
      candidates = ask(protocol.requests.docker_contexts)
    else
      candidates = ask(protocol.requests.containers, { context = words[5] })
    end
  elseif #words == 4 and words[2] == "new-thread" and words[3] == "ssh" then
    -- The Host aliases of ~/.ssh/config, from a running host.
    local h = require("magenta.host")
    candidates = h.running() and h.request(protocol.requests.ssh_hosts) or {}
  elseif #words == 3 and (words[2] == "thread" or words[2] == "delete-thread") then
    -- Only a running host has threads; completion never starts one.
    local h = require("magenta.host")
    candidates = h.running() and h.request(protocol.requests.thread_ids) or {}
  elseif #words == 4 and words[2] == "rewind" then
    candidates = { "code", "conversation", "both" }
  elseif #words > 2 then
    return {}
  end
  return vim.tbl_filter(function(c)
    return c:sub(1, #arglead) == arglead
  end, candidates)
end


return M
