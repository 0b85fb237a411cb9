-- magenta: an AI coding agent in a Neovim sidebar. setup() only records
-- options and defines the :Magenta command and keymaps; the Go host
-- starts on first use.
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
function M.command(args)
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

local global_actions = {
  toggle = { "toggle", "toggle the chat sidebar" },
  new_thread = { "new-thread", "start a new thread" },
  threads = { "threads", "list threads" },
  abort = { "abort", "abort the current turn" },
  add_buffer = { "add-buffer", "attach the current buffer to the thread" },
}

local mapped = {}

local function set_keymaps()
  for _, lhs in ipairs(mapped) do
    pcall(vim.api.nvim_del_keymap, "n", lhs)
  end
  mapped = {}
  local km = config.options.keymaps
  if not km or not km.global then
    return
  end
  for name, lhs in pairs(km.global) do
    local action = global_actions[name]
    if lhs and action then
      -- nvim_set_keymap rather than vim.keymap.set: on 0.7 the latter
      -- loads a module on first use, which setup() should not pay for.
      vim.api.nvim_set_keymap("n", lhs, "", {
        callback = function()
          M.command({ action[1] })
        end,
        desc = "magenta: " .. action[2],
        noremap = true,
        silent = true,
      })
      mapped[#mapped + 1] = lhs
    end
  end
end

--- Configures magenta. Invalid options leave the previous ones in place
--- and report one error naming the option.
function M.setup(opts)
  local ok, err = config.set(opts)
  if not ok then
    vim.notify(err, vim.log.levels.ERROR)
    return false
  end
  vim.api.nvim_create_user_command("Magenta", function(cmd)
    M.command(cmd.fargs)
  end, { nargs = "+", complete = M.complete, desc = "magenta: AI coding agent" })
  set_keymaps()
  local host = package.loaded["magenta.host"]
  if host and host.running() then
    host.notify("configure", { options = config.for_host() })
  end
  return true
end

return M
