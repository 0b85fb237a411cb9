-- Buffer-aware file access for the host: a file loaded in a buffer is
-- read from the buffer (unsaved changes included) and written through it,
-- so the user's undo history, marks and cursor survive and LSP sees the
-- change. Called over RPC by pkg/capabilities/nvimbuf.
local M = {}

local api = vim.api

-- The loaded buffer showing path, or nil.
local function loaded(path)
  local buf = vim.fn.bufnr("^" .. vim.fn.fnameescape(path) .. "$")
  if buf <= 0 then
    -- bufnr() patterns can miss names with special characters; compare.
    for _, b in ipairs(api.nvim_list_bufs()) do
      if api.nvim_buf_get_name(b) == path then
        buf = b
        break
      end
    end
  end
  if buf > 0 and api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == "" then
    return buf
  end
  return nil
end

--- Returns { loaded = false } or { loaded = true, lines = {...},
--- eol = bool, dos = bool, modified = bool }.
function M.read(path)
  local buf = loaded(path)
  if not buf then
    return { loaded = false }
  end
  return {
    loaded = true,
    lines = api.nvim_buf_get_lines(buf, 0, -1, false),
    eol = vim.bo[buf].eol or vim.bo[buf].fixeol,
    dos = vim.bo[buf].fileformat == "dos",
    modified = vim.bo[buf].modified,
  }
end

--- Replaces the buffer's lines with lines (changing only the lines that
--- differ, as one undo step, so the cursor and marks elsewhere stay) and
--- writes the buffer. Returns false when path is not loaded.
function M.write(path, lines, eol, dos)
  local buf = loaded(path)
  if not buf then
    return false
  end
  local old = api.nvim_buf_get_lines(buf, 0, -1, false)
  local first = 1
  while first <= #old and first <= #lines and old[first] == lines[first] do
    first = first + 1
  end
  local old_last, new_last = #old, #lines
  while old_last >= first and new_last >= first and old[old_last] == lines[new_last] do
    old_last, new_last = old_last - 1, new_last - 1
  end
  if first <= old_last or first <= new_last then
    api.nvim_buf_set_lines(buf, first - 1, old_last, false, vim.list_slice(lines, first, new_last))
  end
  vim.bo[buf].eol = eol
  vim.bo[buf].fileformat = dos and "dos" or "unix"
  api.nvim_buf_call(buf, function()
    vim.cmd("silent keepalt write!")
  end)
  return true
end

return M
