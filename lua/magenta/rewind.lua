-- :Magenta rewind: go back to before one of your messages — the files the
-- agent changed since (code), the conversation, or both. The host keeps
-- the checkpoints (pkg/rewind); this file lists the messages, previews
-- the restore, asks, and gives the editor's unsaved buffers to the host.
local protocol = require("magenta.protocol")
local M = {}

local api = vim.api

local function host()
  return require("magenta.host")
end

local function notify(msg, level)
  vim.notify("magenta: " .. msg, level or vim.log.levels.INFO)
end

-- A buffer's text as its file would hold it.
local function text_of(buf)
  local lines = api.nvim_buf_get_lines(buf, 0, -1, false)
  local sep = vim.bo[buf].fileformat == "dos" and "\r\n" or "\n"
  local text = table.concat(lines, sep)
  if vim.bo[buf].eol or vim.bo[buf].fixeol then
    text = text .. sep
  end
  return text
end

--- The unsaved text of every modified file buffer, as a list of
--- { path, text } (the host keeps those in its workspace). Called by the
--- host too (pkg/host/rewind.go).
function M.modified()
  local out = {}
  for _, buf in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == "" and vim.bo[buf].modified then
      local name = api.nvim_buf_get_name(buf)
      if name ~= "" then
        out[#out + 1] = { path = name, text = text_of(buf) }
      end
    end
  end
  return out
end

--- Which of paths a loaded buffer holds (a list of booleans).
function M.loaded(paths)
  local by_name = {}
  for _, buf in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(buf) then
      by_name[api.nvim_buf_get_name(buf)] = true
    end
  end
  local out = {}
  for i, p in ipairs(paths) do
    out[i] = by_name[p] == true
  end
  return out
end

local function first_line(text)
  local line = (text or ""):match("^[^\n]*") or ""
  if #line > 60 then
    line = line:sub(1, 57) .. "..."
  end
  return line
end

-- The line of the list for one message.
local function describe(m)
  local changed
  if not m.checkpoint then
    changed = "no checkpoint"
  elseif m.files == 0 then
    changed = "no file changed since"
  else
    changed = string.format("%d file%s changed since", m.files, m.files == 1 and "" or "s")
    if m.added >= 0 then
      changed = changed .. string.format(" (+%d -%d)", m.added, m.removed)
    end
  end
  return string.format("%d. %s — %s", m.n, first_line(m.text), changed)
end

local preview_win

local function close_preview()
  if preview_win and api.nvim_win_is_valid(preview_win) then
    api.nvim_win_close(preview_win, true)
  end
  preview_win = nil
end

-- Shows the diff restoring the code would apply, in a scratch split.
local function show_preview(n, diff)
  close_preview()
  local buf = api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "wipe"
  local lines = vim.split(diff ~= "" and diff or "(restoring the code changes nothing)", "\n", { plain = true })
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = "diff"
  pcall(api.nvim_buf_set_name, buf, "magenta://rewind/" .. n)
  vim.cmd("botright split")
  preview_win = api.nvim_get_current_win()
  api.nvim_win_set_buf(preview_win, buf)
end

local function preview(n)
  return host().request(protocol.requests.rewind_preview, { n = n, buffers = M.modified() })
end

--- Rewinds to before message n: what is "code", "conversation" or
--- "both"; force restores files you changed since the agent did without
--- asking.
function M.rewind(n, what, force)
  if what ~= "conversation" and not force then
    local p, err = preview(n)
    if not p then
      notify(err, vim.log.levels.ERROR)
      return
    end
    if type(p.conflicts) == "table" and #p.conflicts > 0 then
      local answer = vim.fn.confirm(
        "magenta: you changed " .. table.concat(p.conflicts, ", ") .. " since the agent did. Restore anyway?",
        "&Restore\n&Cancel",
        2
      )
      if answer ~= 1 then
        return
      end
    end
  end
  host().notify(protocol.events.rewind, { n = n, what = what, force = force == true })
end

-- Asks what to restore for message n, with the code's diff shown.
local function choose(n)
  local p, err = preview(n)
  local choices = { "restore code", "restore conversation", "restore both", "cancel" }
  if p then
    show_preview(n, type(p.diff) == "string" and p.diff or "")
  else
    notify(err .. "; only the conversation can be restored", vim.log.levels.WARN)
    choices = { "restore conversation", "cancel" }
  end
  vim.ui.select(choices, { prompt = string.format("Rewind to before message %d:", n) }, function(choice)
    close_preview()
    if choice == nil or choice == "cancel" then
      return
    end
    local what = ({ ["restore code"] = "code", ["restore conversation"] = "conversation", ["restore both"] = "both" })[choice]
    M.rewind(n, what, false)
  end)
end

--- :Magenta rewind [N [code|conversation|both]] (a "!" after the command
--- or the kind restores files you changed without asking).
function M.command(args, bang)
  local n = tonumber(args[1] or "")
  local what = args[2]
  if what ~= nil and what:sub(-1) == "!" then
    what, bang = what:sub(1, -2), true
  end
  if args[1] ~= nil and (n == nil or n < 1 or n % 1 ~= 0) then
    notify("usage: :Magenta rewind [{N} [code|conversation|both]]", vim.log.levels.ERROR)
    return
  end
  if what ~= nil and what ~= "code" and what ~= "conversation" and what ~= "both" then
    notify(string.format("unknown rewind %q; use code, conversation or both", what), vim.log.levels.ERROR)
    return
  end
  if n and what then
    M.rewind(n, what, bang)
    return
  end
  if n then
    choose(n)
    return
  end
  local res, err = host().request(protocol.requests.rewind_list, { buffers = M.modified() })
  if not res then
    notify(err, vim.log.levels.ERROR)
    return
  end
  if res.problem ~= nil and res.problem ~= "" then
    notify(res.problem, vim.log.levels.WARN)
  end
  if type(res.messages) ~= "table" or #res.messages == 0 then
    notify("this thread has no messages of yours to rewind to")
    return
  end
  local items = {}
  for i = #res.messages, 1, -1 do
    items[#items + 1] = res.messages[i]
  end
  vim.ui.select(items, { prompt = "Rewind to before which message?", format_item = describe }, function(item)
    if item then
      choose(item.n)
    end
  end)
end

return M
