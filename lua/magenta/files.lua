-- Buffer-aware file access for the host: a file loaded in a buffer is
-- read from the buffer (unsaved changes included) and written through it,
-- so the user's undo history, marks and cursor survive and LSP sees the
-- change. Called over RPC by pkg/capabilities/nvimbuf.
--
-- The disk is checked first, without prompting: an unmodified buffer
-- whose file changed (a formatter, `git checkout`, `sed -i`) is reloaded
-- before it is read or written, so a stale buffer is never shown to the
-- model nor written over the newer file; a modified one is marked as a
-- conflict, and writes are refused until the user writes or reloads it.
local M = {}

local api = vim.api

-- conflicts[buf] is true while buf has unsaved changes and its file
-- changed on disk. Neovim forgets the change once it has reported it (it
-- stores the new timestamp), so the mark is ours to keep.
local conflicts = {}
local conflict_group

local function mark_conflict(buf)
  conflicts[buf] = true
  if conflict_group then
    return
  end
  conflict_group = api.nvim_create_augroup("magenta_disk_conflicts", { clear = true })
  -- Writing or reloading the buffer resolves the conflict (the user chose
  -- a side); unloading forgets it.
  api.nvim_create_autocmd({ "BufWritePost", "BufReadPost", "BufUnload" }, {
    group = conflict_group,
    callback = function(ev)
      conflicts[ev.buf] = nil
    end,
  })
end

-- Asks Neovim whether buf's file changed on disk (`:checktime`), answering
-- its question ourselves instead of prompting the user: reload an
-- unmodified buffer, keep a modified one and remember the conflict.
local function check_disk(buf)
  local group = api.nvim_create_augroup("magenta_checktime", { clear = true })
  api.nvim_create_autocmd("FileChangedShell", {
    group = group,
    pattern = "*",
    callback = function(ev)
      if ev.buf ~= buf then
        return
      end
      -- "conflict": changed on disk and in the buffer; "changed" and
      -- "mode": on disk only; "time": only the timestamp; "deleted".
      local reason = vim.v.fcs_reason
      if reason == "conflict" or (reason == "changed" and vim.bo[buf].modified) then
        mark_conflict(buf)
        vim.v.fcs_choice = ""
      elseif (reason == "changed" or reason == "mode") and not vim.bo[buf].modified then
        vim.v.fcs_choice = "reload"
      else
        vim.v.fcs_choice = ""
      end
    end,
  })
  local ok, err = pcall(vim.cmd, "checktime " .. buf)
  api.nvim_del_augroup_by_id(group)
  if not ok then
    error(err, 0)
  end
end

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

-- Insert or Replace mode, or a command run from them with i_CTRL-O.
local function insert_mode(mode)
  local first = mode:sub(1, 1)
  return first == "i" or first == "R" or mode:sub(1, 2) == "ni"
end

-- The mode the command line was entered from: an insert stays unfinished
-- under i_CTRL-R_= or i_CTRL-O followed by ":", where the mode reads "c".
-- Unknown ("?") when this module loads with the command line open: then
-- it counts as an insert (an edit waits for the command line to end).
local below_cmdline = api.nvim_get_mode().mode:sub(1, 1) == "c" and "?" or nil
api.nvim_create_autocmd("ModeChanged", {
  group = api.nvim_create_augroup("magenta_files_modes", { clear = true }),
  callback = function()
    local old, new = vim.v.event.old_mode or "", vim.v.event.new_mode or ""
    if new:sub(1, 1) ~= "c" then
      below_cmdline = nil
    elseif old:sub(1, 1) ~= "c" then
      below_cmdline = old
    end
  end,
})

-- Whether the user is in the middle of an insert in buf: their line is
-- half-typed, and a completion menu may be open on it.
local function inserting(buf)
  if api.nvim_get_current_buf() ~= buf then
    return false
  end
  local mode = api.nvim_get_mode().mode
  if mode:sub(1, 1) == "c" then
    return below_cmdline ~= nil and (below_cmdline == "?" or insert_mode(below_cmdline))
  end
  return insert_mode(mode)
end

--- Whether the user is typing in path's buffer (Insert mode there). The
--- host polls it while an edit of the file waits (see M.write); with
--- tell (its first poll) the user is told why the edit waits.
function M.inserting(path, tell)
  local buf = loaded(path)
  local yes = buf ~= nil and inserting(buf)
  if yes and tell == true then
    vim.notify(
      "magenta: an edit of " .. vim.fn.fnamemodify(path, ":~:.") .. " waits until you leave Insert mode",
      vim.log.levels.INFO
    )
  end
  return yes
end

-- Closes buf's current undo block: the next change starts a new one.
-- Setting 'undolevels', even to its own value, syncs undo (:help
-- undo-break); the local value, so a global-local setting stays as it
-- was. A change made while an insert is under way joins the insert's
-- undo block without it (0.7.2 to 0.12 alike); writes wait for the
-- inserts they can see (M.write), and this keeps the edit its own undo
-- step in any they cannot.
local function break_undo(buf)
  api.nvim_buf_call(buf, function()
    vim.cmd("let &l:undolevels = &l:undolevels")
  end)
end

local function eol(buf)
  return vim.bo[buf].eol or vim.bo[buf].fixeol
end

local function dos(buf)
  return vim.bo[buf].fileformat == "dos"
end

-- The size of buf's text as the host turns it into file bytes, without
-- copying it: nvim_buf_get_offset counts one byte per line end.
local function size(buf)
  local n = api.nvim_buf_line_count(buf)
  local sep = dos(buf) and 2 or 1
  return api.nvim_buf_get_offset(buf, n) - n + (n - 1) * sep + (eol(buf) and sep or 0)
end

--- Returns { loaded = false } or { loaded = true, size = bytes,
--- modified = bool, conflict = bool, tick = changedtick } plus, unless
--- the text is larger than max_bytes (nil: no limit), lines = {...},
--- eol = bool, dos = bool, and inserting = true while the user is
--- typing in the buffer (see M.write). With checked (a read the host's
--- permission check judged), an unmodified buffer is answered as not
--- loaded and nothing reads the disk here: the host reads the file it
--- checked, not whatever a reload would find at the name now.
function M.read(path, max_bytes, checked)
  local buf = loaded(path)
  if not buf then
    return { loaded = false }
  end
  if checked == true and not vim.bo[buf].modified then
    return { loaded = false }
  end
  check_disk(buf)
  local res = {
    loaded = true,
    size = size(buf),
    modified = vim.bo[buf].modified,
    conflict = conflicts[buf] == true,
    tick = api.nvim_buf_get_changedtick(buf),
    inserting = inserting(buf),
  }
  if max_bytes == nil or max_bytes == vim.NIL or res.size <= max_bytes then
    res.lines = api.nvim_buf_get_lines(buf, 0, -1, false)
    res.eol = eol(buf)
    res.dos = dos(buf)
  end
  return res
end

--- Lines [first, last) (0-based) of path's buffer for a reader going
--- through it in pieces, with the buffer's line count, eol and dos.
--- tick is the changedtick the reader started from: if the buffer has
--- changed since, no lines are returned and changed = true, so a reader
--- never joins pieces of two versions. { loaded = false } when the
--- buffer is gone.
function M.read_lines(path, first, last, tick)
  local buf = loaded(path)
  if not buf then
    return { loaded = false }
  end
  if api.nvim_buf_get_changedtick(buf) ~= tick then
    return { loaded = true, changed = true }
  end
  local count = api.nvim_buf_line_count(buf)
  return {
    loaded = true,
    lines = api.nvim_buf_get_lines(buf, math.min(first, count), math.min(last, count), false),
    count = count,
    eol = eol(buf),
    dos = dos(buf),
  }
end

--- Replaces the buffer's lines with lines (changing only the lines that
--- differ, as one undo step of its own, so the cursor and marks
--- elsewhere stay) and writes the buffer. tick, when given, is the
--- changedtick the new text was computed from: if the buffer changed
--- since (the user typed, the disk reload above), nothing is written and
--- stale is returned. Returns { loaded = false } when path is not loaded,
--- { conflict = true } when the user's unsaved changes and the disk's
--- both changed, { inserting = true } when the user is typing in the
--- buffer.
---
--- While the user is in Insert mode in the buffer nothing is changed:
--- their line is half-typed (writing the buffer would save it), the
--- change would join their insert's undo block, and a completion menu
--- open on their line would complete at a position the change moved.
--- The host waits for them to leave Insert mode (bounded, see
--- pkg/capabilities/nvimbuf) and writes then; the text they typed is
--- finished by then and is saved with the edit, as any unsaved change
--- of theirs is.
function M.write(path, lines, eol_, dos_, tick)
  local buf = loaded(path)
  if not buf then
    return { loaded = false }
  end
  -- Before :checktime too: no reload under an unfinished insert.
  if inserting(buf) then
    return { loaded = true, inserting = true }
  end
  check_disk(buf)
  if conflicts[buf] then
    return { loaded = true, conflict = true }
  end
  if tick ~= nil and tick ~= vim.NIL and api.nvim_buf_get_changedtick(buf) ~= tick then
    return { loaded = true, stale = true }
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
    -- An undo step of its own: one `u` undoes this edit and nothing of
    -- the user's, before or after it.
    break_undo(buf)
    api.nvim_buf_set_lines(buf, first - 1, old_last, false, vim.list_slice(lines, first, new_last))
    break_undo(buf)
  end
  vim.bo[buf].eol = eol_
  vim.bo[buf].fileformat = dos_ and "dos" or "unix"
  -- The disk was checked just above, in this same call: `write!` cannot
  -- overwrite a change it has not seen.
  api.nvim_buf_call(buf, function()
    vim.cmd("silent keepalt write!")
  end)
  return { loaded = true, written = true }
end

return M
