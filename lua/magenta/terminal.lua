-- Terminal windows of interactive commands (:help magenta-interactive).
-- The host opens one with open(), feeds it the command's raw output with
-- send() (nvim_chan_send into a buffer made by nvim_open_term), and gets
-- back what the user types (on_input) and the window's size. The buffer
-- has b:magenta_role = "terminal"; closing its window, or q in normal
-- mode, returns to the chat.
local protocol = require("magenta.protocol")
local M = {}

local api = vim.api

-- Open terminals by the host's id: { buf, win, chan, rows, cols }.
local open = {}

local function host()
  return require("magenta.host")
end

local function notify(name, payload)
  host().notify_if_running(name, payload)
end

-- The window to split: the chat's display window when it is shown.
local function chat_window()
  local sidebar = package.loaded["magenta.sidebar"]
  local display = sidebar and sidebar.display_buf()
  if display then
    local win = vim.fn.win_findbuf(display)[1]
    if win then
      return win
    end
  end
  return nil
end

local function back_to_chat()
  local win = chat_window()
  if win and api.nvim_win_is_valid(win) then
    api.nvim_set_current_win(win)
  end
end

-- Sends the size of every terminal window whose size changed.
function M.check_sizes()
  for id, t in pairs(open) do
    if api.nvim_win_is_valid(t.win) and api.nvim_win_get_buf(t.win) == t.buf then
      local rows, cols = api.nvim_win_get_height(t.win), api.nvim_win_get_width(t.win)
      if rows ~= t.rows or cols ~= t.cols then
        t.rows, t.cols = rows, cols
        notify(protocol.events.terminal_resize, { id = id, rows = rows, cols = cols })
      end
    end
  end
end

local watching = false

-- Follows window sizes: WinResized exists from 0.9; before, a resize is
-- noticed on VimResized and when the cursor moves between windows.
local function watch_sizes()
  if watching then
    return
  end
  watching = true
  local group = api.nvim_create_augroup("magenta_terminal", { clear = true })
  local events = { "VimResized", "WinEnter", "BufEnter", "WinLeave", "WinClosed" }
  if vim.fn.exists("##WinResized") == 1 then
    table.insert(events, "WinResized")
  end
  api.nvim_create_autocmd(events, {
    group = group,
    callback = function()
      -- After the layout settles (WinClosed fires before the window goes).
      vim.schedule(M.check_sizes)
    end,
  })
end

local function close_window(id)
  local t = open[id]
  if t and api.nvim_win_is_valid(t.win) then
    if #api.nvim_list_wins() > 1 then
      api.nvim_win_close(t.win, true)
    else
      api.nvim_win_set_buf(t.win, api.nvim_create_buf(true, false))
    end
  end
  back_to_chat()
end

--- Opens the terminal window of id next to the chat, in terminal mode.
--- Returns its size { rows, cols }.
function M.open(id, title)
  if open[id] then
    M.focus(id)
    return { rows = open[id].rows, cols = open[id].cols }
  end
  local chat = chat_window()
  if chat then
    api.nvim_set_current_win(chat)
    vim.cmd("belowright split")
  else
    vim.cmd("botright split")
  end
  local win = api.nvim_get_current_win()
  local buf = api.nvim_create_buf(false, true)
  api.nvim_win_set_buf(win, buf)
  vim.bo[buf].bufhidden = "wipe"
  api.nvim_buf_set_var(buf, "magenta_role", "terminal")
  api.nvim_buf_set_var(buf, "magenta_terminal", id)
  pcall(api.nvim_buf_set_name, buf, "magenta://terminal/" .. id)
  vim.wo[win].number = false
  vim.wo[win].relativenumber = false
  vim.wo[win].signcolumn = "no"
  vim.wo[win].foldcolumn = "0"
  if title and title ~= "" then
    vim.wo[win].statusline = "magenta terminal: " .. title:gsub("%%", "%%%%")
  end
  local chan = api.nvim_open_term(buf, {
    on_input = function(_, _, _, data)
      notify(protocol.events.terminal_input, { id = id, data = data })
    end,
  })
  local rows, cols = api.nvim_win_get_height(win), api.nvim_win_get_width(win)
  open[id] = { buf = buf, win = win, chan = chan, rows = rows, cols = cols }
  vim.keymap.set("n", "q", function()
    close_window(id)
  end, { buffer = buf, nowait = true, silent = true, desc = "magenta: close the terminal" })
  api.nvim_create_autocmd("BufWipeout", {
    buffer = buf,
    once = true,
    callback = function()
      open[id] = nil
      notify(protocol.events.terminal_closed, { id = id })
    end,
  })
  watch_sizes()
  vim.cmd("startinsert")
  return { rows = rows, cols = cols }
end

--- Feeds data (the command's raw output) to the terminal of id.
--- Returns false when its buffer is gone.
function M.send(id, data)
  local t = open[id]
  if not t or not api.nvim_buf_is_valid(t.buf) then
    open[id] = nil
    return false
  end
  local ok = pcall(api.nvim_chan_send, t.chan, data)
  return ok
end

--- Moves the cursor to the terminal of id, in terminal mode.
function M.focus(id)
  local t = open[id]
  if t and api.nvim_win_is_valid(t.win) then
    api.nvim_set_current_win(t.win)
    vim.cmd("startinsert")
  end
end

--- The ids of the open terminals (tests, :checkhealth).
function M.ids()
  local ids = {}
  for id in pairs(open) do
    ids[#ids + 1] = id
  end
  table.sort(ids)
  return ids
end

return M
