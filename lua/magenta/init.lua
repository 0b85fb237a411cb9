-- magenta: an AI coding agent in a Neovim sidebar. setup() only records
-- options and defines the :Magenta command and keymaps; the Go host
-- starts on first use.
local config = require("magenta.config")

local M = {}

--- Runs a :Magenta subcommand (args as typed, split on white space).
function M.command(args)
  require("magenta.commands").run(args)
end

function M.complete(arglead, cmdline)
  return require("magenta.commands").complete(arglead, cmdline)
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
