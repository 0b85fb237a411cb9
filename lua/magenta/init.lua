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
  restart = function()
    host().stop()
  end,
}

local order = { "toggle", "send", "abort", "new-thread", "threads", "thread", "profile", "restart" }

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
