-- The :Magenta subcommands, loaded on first use so that setup() stays
-- cheap.
local config = require("magenta.config")

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
    host().notify("abort")
  end,
  ["new-thread"] = function()
    host().notify("new_thread")
    sidebar().open()
  end,
  threads = function()
    host().notify("threads")
    sidebar().open()
  end,
  thread = function(args)
    host().notify("thread", { id = args[1] or "" })
    sidebar().open()
  end,
  profile = function(args)
    if not args[1] then
      vim.notify("magenta: :Magenta profile needs a name: " .. table.concat(config.profile_names(), ", "), vim.log.levels.ERROR)
      return
    end
    host().notify("profile", { name = args[1] })
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
    host().notify("context_files", { paths = paths })
    sidebar().open()
  end,
  ["add-buffer"] = function()
    local name = vim.api.nvim_buf_get_name(0)
    if name == "" or vim.bo.buftype ~= "" then
      vim.notify("magenta: the current buffer is not a file", vim.log.levels.ERROR)
      return
    end
    host().notify("context_files", { paths = { name } })
  end,
  restart = function()
    host().stop()
  end,
}

local order =
  { "toggle", "send", "abort", "new-thread", "threads", "thread", "profile", "context-files", "add-buffer", "restart" }

--- Runs a :Magenta subcommand (args as typed, split on white space).
function M.run(args)
  local sub = args[1]
  local fn = sub and M.subcommands[sub]
  if not fn then
    vim.notify(
      string.format("magenta: unknown subcommand %q; use one of: %s", tostring(sub), table.concat(order, ", ")),
      vim.log.levels.ERROR
    )
    return
  end
  fn(vim.list_slice(args, 2))
end

function M.complete(arglead, cmdline)
  local words = vim.split(cmdline, "%s+", { trimempty = false })
  local candidates = order
  if #words > 2 and words[2] == "profile" then
    candidates = config.profile_names()
  elseif #words > 2 and words[2] == "context-files" then
    return vim.fn.getcompletion(arglead, "file")
  elseif #words > 2 then
    return {}
  end
  return vim.tbl_filter(function(c)
    return c:sub(1, #arglead) == arglead
  end, candidates)
end


return M
