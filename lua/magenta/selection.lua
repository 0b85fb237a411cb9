-- :Magenta paste-selection: appends the selected lines to the chat's
-- input, as the file's path with the line range and a fenced block with
-- the filetype, and puts the cursor there.
local M = {}

local api = vim.api

local function notify(msg)
  vim.notify("magenta: " .. msg, vim.log.levels.ERROR)
end

-- A fence longer than any run of backticks in the lines, so a selection
-- holding ``` cannot close the block early.
local function fence(lines)
  local longest = 0
  for _, l in ipairs(lines) do
    for run in l:gmatch("`+") do
      longest = math.max(longest, #run)
    end
  end
  return string.rep("`", math.max(3, longest + 1))
end

--- The block pasted for lines line1..line2 (1-based) of buf.
function M.block(buf, line1, line2)
  local lines = api.nvim_buf_get_lines(buf, line1 - 1, line2, false)
  local name = api.nvim_buf_get_name(buf)
  name = name ~= "" and vim.fn.fnamemodify(name, ":.") or ("[buffer " .. buf .. "]")
  local range = line1 == line2 and tostring(line1) or (line1 .. "-" .. line2)
  local f = fence(lines)
  local out = { name .. ":" .. range, f .. vim.bo[buf].filetype }
  vim.list_extend(out, lines)
  out[#out + 1] = f
  return out
end

--- Pastes lines line1..line2 of the current buffer into the input.
function M.paste(line1, line2)
  local buf = api.nvim_get_current_buf()
  if not line1 or not line2 or line1 < 1 then
    return notify("paste-selection needs a selection: select lines in visual mode, or give a range")
  end
  local ok, role = pcall(api.nvim_buf_get_var, buf, "magenta_role")
  if ok and role then
    return notify("paste-selection pastes from a file buffer, not from the chat")
  end
  local block = M.block(buf, line1, line2)
  local sidebar = require("magenta.sidebar")
  sidebar.open()
  local input = sidebar.input_buf()
  local win = input and vim.fn.win_findbuf(input)[1]
  if not win then
    return notify("the chat input is not shown")
  end
  local existing = api.nvim_buf_get_lines(input, 0, -1, false)
  local empty = #existing == 1 and existing[1] == ""
  if not empty then
    table.insert(block, 1, "")
  end
  block[#block + 1] = ""
  api.nvim_buf_set_lines(input, empty and 0 or -1, -1, false, block)
  api.nvim_set_current_win(win)
  api.nvim_win_set_cursor(win, { api.nvim_buf_line_count(input), 0 })
end

-- PASTE_TIMEOUT_MS bounds :Magenta paste-image (the host gives each
-- clipboard tool 5 s).
M.PASTE_TIMEOUT_MS = 8000

--- :Magenta paste-image: the host reads the clipboard's image into a
--- file under stdpath("cache") (pkg/host/paste.go); its @image mention
--- goes at the end of the input, so the message takes it when sent.
function M.paste_image()
  local sidebar = require("magenta.sidebar")
  sidebar.open()
  local dir = vim.fn.stdpath("cache") .. "/magenta/pasted"
  local protocol = require("magenta.protocol")
  local res, err = require("magenta.host").request(protocol.requests.paste_image, { dir = dir }, M.PASTE_TIMEOUT_MS)
  if type(res) ~= "table" then
    return notify("paste-image: the host did not answer: " .. tostring(err))
  end
  if type(res.path) ~= "string" then
    return notify("paste-image: " .. tostring(res.error))
  end
  local input = sidebar.input_buf()
  local win = input and vim.fn.win_findbuf(input)[1]
  if not win then
    return notify("the chat input is not shown")
  end
  local mention = "@image:" .. (res.path:find("%s") and ('"' .. res.path .. '"') or res.path)
  local last = api.nvim_buf_line_count(input)
  local line = api.nvim_buf_get_lines(input, last - 1, last, false)[1] or ""
  local text = line == "" and mention or (line .. " " .. mention)
  api.nvim_buf_set_lines(input, last - 1, last, false, { text .. " " })
  api.nvim_set_current_win(win)
  api.nvim_win_set_cursor(win, { last, #text + 1 })
end

return M
