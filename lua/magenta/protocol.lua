-- The names of the host's events (host.notify) and requests
-- (host.request). Every call site names one through this table, never a
-- string literal, so a name exists in one place on each side: here and
-- in the host's table (pkg/host/protocol.go, with each payload's
-- fields). TestLuaProtocolMatchesHost fails, naming the difference,
-- when the two disagree.
local M = {}

M.events = {
  -- Plumbing: handled whether or not the host is attached.
  attach = "attach",
  configure = "configure",
  display = "display",
  lsp_result = "lsp_result",
  request = "request",
  terminal_closed = "terminal_closed",
  terminal_input = "terminal_input",
  terminal_resize = "terminal_resize",
  -- For the chat.
  abort = "abort",
  attach_files = "attach_files",
  compact = "compact",
  context_files = "context_files",
  delete_thread = "delete_thread",
  hooks_trust = "hooks_trust",
  hooks_untrust = "hooks_untrust",
  inline_abort = "inline_abort",
  inline_edit = "inline_edit",
  key = "key",
  mcp_trust = "mcp_trust",
  mcp_untrust = "mcp_untrust",
  new_thread = "new_thread",
  plan = "plan",
  profile = "profile",
  rewind = "rewind",
  send = "send",
  thread = "thread",
  threads = "threads",
}

M.requests = {
  approvals = "approvals",
  check_paths = "check_paths",
  containers = "containers",
  docker_contexts = "docker_contexts",
  docker_version = "docker_version",
  git_diff = "git_diff",
  hooks = "hooks",
  image = "image",
  mcp = "mcp",
  mcp_project = "mcp_project",
  paste_image = "paste_image",
  ping = "ping",
  rewind_list = "rewind_list",
  rewind_preview = "rewind_preview",
  rg = "rg",
  sandbox = "sandbox",
  slash_commands = "slash_commands",
  ssh_hosts = "ssh_hosts",
  thread_ids = "thread_ids",
  version = "version",
}

-- A misspelt name is an error where it is used, not a nil name sent to
-- the host and reported there without the call site.
for kind, names in pairs({ event = M.events, request = M.requests }) do
  setmetatable(names, {
    __index = function(_, name)
      error("magenta: no " .. kind .. " named " .. tostring(name), 2)
    end,
  })
end

return M
