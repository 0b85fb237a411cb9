-- magenta: an AI coding agent in a Neovim sidebar. setup() only records
-- options and defines the :Magenta command and keymaps; the Go host
-- starts on first use.
local config = require("magenta.config")

local protocol = require("magenta.protocol")
local M = {}

--- Runs a :Magenta subcommand (args as typed, split on white space);
--- cmd is the user command's table (its range), when there is one.
function M.command(args, cmd)
  -- A toggle that will start the host starts it before loading the
  -- sidebar's modules (~1.5 ms): the host's own start-up is the longer
  -- wait (host.prestart).
  if (args[1] or "toggle") == "toggle" and not config.no_profile_error() then
    require("magenta.host").prestart()
  end
  require("magenta.commands").run(args, cmd)
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
  plan = { "plan", "plan mode on or off" },
}

-- Visual-mode keymaps: a ":" mapping, so the command gets the selection
-- as its range ('<,'>).
local visual_actions = {
  paste_selection = { "paste-selection", "paste the selection into the chat input" },
  inline_edit = { "inline-edit", "edit the selection in place" },
}

-- For the sidebar's key help (?) and which-key.
M.global_actions = global_actions
M.visual_actions = visual_actions

local mapped = {}
local mapped_visual = {}

local function set_keymaps()
  for _, lhs in ipairs(mapped) do
    pcall(vim.api.nvim_del_keymap, "n", lhs)
  end
  mapped = {}
  for _, lhs in ipairs(mapped_visual) do
    pcall(vim.api.nvim_del_keymap, "x", lhs)
  end
  mapped_visual = {}
  local km = config.options.keymaps
  for name, lhs in pairs(km and km.visual or {}) do
    local action = visual_actions[name]
    if lhs and action then
      vim.api.nvim_set_keymap("x", lhs, ":Magenta " .. action[1] .. "<CR>", {
        desc = "magenta: " .. action[2],
        noremap = true,
        silent = true,
      })
      mapped_visual[#mapped_visual + 1] = lhs
    end
  end
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

-- A language server reports a clean file once, right after it opens; the
-- diagnostics tool must have seen that report even when the host starts
-- later. So lsp.lua follows the reports from the first server attach on.
-- Cheap: one autocommand; lsp.lua loads when a server attaches (or now,
-- when servers already run: setup() called late).
local function follow_lsp_reports()
  local group = vim.api.nvim_create_augroup("magenta_lsp_reports", { clear = true })
  local lsp = package.loaded["vim.lsp"]
  if lsp and #(lsp.get_clients and lsp.get_clients() or lsp.get_active_clients()) > 0 then
    require("magenta.lsp").track()
  elseif vim.fn.exists("##LspAttach") == 1 then
    vim.api.nvim_create_autocmd("LspAttach", {
      group = group,
      once = true,
      callback = function(ev)
        -- The attaching client has not reported yet: it just started.
        require("magenta.lsp").track(ev.data and ev.data.client_id)
      end,
    })
  else
    -- 0.7 has no LspAttach. Its clients start from FileType autocommands
    -- (lspconfig's, the user's): on the loop turn after a FileType that
    -- loaded vim.lsp, tracking starts — before the new server's answer to
    -- initialize can be read, so before it is sent the file.
    vim.api.nvim_create_autocmd("FileType", {
      group = group,
      callback = function()
        vim.schedule(function()
          if package.loaded["vim.lsp"] then
            pcall(vim.api.nvim_del_augroup_by_name, "magenta_lsp_reports")
            require("magenta.lsp").track()
          end
        end)
      end,
    })
  end
end

--- Configures magenta. Invalid options are reported (all of them, in one
--- message) and replaced by their defaults; the plugin stays usable.
function M.setup(opts)
  local _, err = config.set(opts)
  if err then
    vim.notify(err, vim.log.levels.WARN)
  end
  vim.api.nvim_create_user_command("Magenta", function(cmd)
    M.command(cmd.fargs, cmd)
  end, { nargs = "*", range = true, bang = true, complete = M.complete, desc = "magenta: AI coding agent" })
  set_keymaps()
  follow_lsp_reports()
  -- which-key names the keys' shared prefix (+magenta) once the startup
  -- scripts ran (it may be set up after magenta); nothing without it.
  vim.schedule(function()
    local ok, wk = pcall(require, "which-key")
    if ok and type(wk) == "table" then
      require("magenta.keys").register_which_key(wk)
    end
  end)
  local host = package.loaded["magenta.host"]
  if host and host.running() then
    host.notify(protocol.events.configure, { options = config.for_host() })
  end
  return err == nil
end

return M
