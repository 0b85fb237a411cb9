-- Applies the host's frames to the display buffer, and shows its
-- notifications. Called over RPC (nvim_exec_lua), once per frame.
local M = {}

M.ns = vim.api.nvim_create_namespace("magenta")

local links = {
  MagentaTitle = "Title",
  MagentaMeta = "Comment",
  MagentaUser = "Statement",
  MagentaAssistant = "Function",
  MagentaTool = "Special",
  MagentaToolOk = "DiagnosticOk",
  MagentaToolError = "DiagnosticError",
  MagentaError = "ErrorMsg",
  MagentaWarning = "WarningMsg",
  MagentaStatus = "NonText",
  MagentaSelected = "Visual",
  MagentaButton = "Underlined",
  -- Only real approvals' choices: the model's text never gets it.
  MagentaApprovalChoice = "PmenuSel",
  MagentaDiffAdd = "DiffAdd",
  MagentaDiffDelete = "DiffDelete",
  MagentaDiffHunk = "Identifier",
}

local defined = false

--- Links magenta's highlight groups to standard ones unless the colour
--- scheme defines them.
function M.define_highlights()
  if defined then
    return
  end
  defined = true
  for group, target in pairs(links) do
    if target == "DiagnosticOk" and vim.fn.hlexists("DiagnosticOk") == 0 then
      target = "DiffAdd" -- DiagnosticOk is 0.9+
    end
    vim.cmd(string.format("highlight default link %s %s", group, target))
  end
end

--- Returns nil when buf is a display buffer the sidebar made (it sets
--- b:magenta_role = "display"), else why the host may not draw into it:
--- pointed at a file buffer, the chat would overwrite the file's text.
function M.check_display(buf)
  if type(buf) ~= "number" or not vim.api.nvim_buf_is_valid(buf) then
    return string.format("buffer %s does not exist", tostring(buf))
  end
  local ok, role = pcall(vim.api.nvim_buf_get_var, buf, "magenta_role")
  if not ok or role ~= "display" then
    return string.format("buffer %d is not a magenta display buffer (b:magenta_role is not \"display\"); nothing was drawn into it", buf)
  end
  return nil
end

--- Replaces lines [s, e) of buf (e = -1: to the end) with lines, and
--- highlights them; hls holds {line (relative to s), start, end, group}.
--- Windows whose cursor was on the last line keep following the end, or
--- stop on the first choice of an approval the edit draws.
--- Only a display buffer is drawn into (see check_display).
--- seq numbers the frame now shown; keys pressed in the buffer send it
--- back (b:magenta_frame), so the host resolves them on that frame.
function M.apply(buf, s, e, lines, hls, seq)
  if not vim.api.nvim_buf_is_valid(buf) then
    return false
  end
  local bad = M.check_display(buf)
  if bad then
    error("magenta: " .. bad)
  end
  local last = vim.api.nvim_buf_line_count(buf)
  local follow = {}
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    if vim.api.nvim_win_get_cursor(win)[1] >= last then
      follow[#follow + 1] = win
    end
  end
  vim.api.nvim_buf_clear_namespace(buf, M.ns, s, e)
  vim.bo[buf].modifiable = true
  local ok, err = pcall(vim.api.nvim_buf_set_lines, buf, s, e, false, lines)
  vim.bo[buf].modifiable = false
  if not ok then
    error(err)
  end
  -- The first choice of a real approval this edit draws (only the host
  -- gives a line MagentaApprovalChoice, never the model's text).
  local choice
  for _, h in ipairs(hls) do
    vim.api.nvim_buf_add_highlight(buf, M.ns, h[4], s + h[1], h[2], h[3])
    if h[4] == "MagentaApprovalChoice" and (choice == nil or s + h[1] < choice) then
      choice = s + h[1]
    end
  end
  if seq and seq > 0 then
    vim.api.nvim_buf_set_var(buf, "magenta_frame", seq)
  end
  if #follow > 0 then
    -- Windows following the end stop on an approval that appears, so
    -- its keys answer it there; the current window stays current.
    local n = vim.api.nvim_buf_line_count(buf)
    local target = choice and math.min(choice + 1, n) or n
    for _, win in ipairs(follow) do
      if vim.api.nvim_win_is_valid(win) then
        vim.api.nvim_win_set_cursor(win, { target, 0 })
      end
    end
  end
  local sidebar = package.loaded["magenta.sidebar"]
  if sidebar then
    sidebar.load_syntax()
  end
  return true
end

--- Notifies only when buf is not shown in any window (an approval waits
--- while the sidebar is closed).
function M.notify_if_hidden(buf, msg)
  if buf ~= 0 and vim.api.nvim_buf_is_valid(buf) and #vim.fn.win_findbuf(buf) > 0 then
    return
  end
  vim.notify(msg, vim.log.levels.WARN)
end

-- Edits path with modelines off for its buffer. What the chat opens is a
-- command's log, a saved web page or a file the model wrote: text someone
-- else chose, where a `vim: set …:` line must not set options. Modelines
-- are applied while the file is read (a new buffer takes the global
-- 'modeline') and, for window options, each time a loaded buffer is
-- edited again (its local 'modeline'), so both are off around :edit, and
-- the buffer keeps it off (a reload or a later :edit applies none).
local function edit_without_modelines(path)
  local full = vim.fn.fnamemodify(path, ":p")
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b) == full then
      vim.bo[b].modeline = false
    end
  end
  local saved = vim.go.modeline
  vim.go.modeline = false
  local ok, err = pcall(vim.cmd, "edit " .. vim.fn.fnameescape(path))
  vim.go.modeline = saved
  if not ok then
    error(err, 0)
  end
  vim.bo.modeline = false
end

--- Opens path in a window that is not part of the sidebar (the previous
--- window when it is a normal one, else a new split), at line if given,
--- with modelines off for its buffer (see edit_without_modelines).
function M.open_file(path, line)
  local function is_sidebar(win)
    local ok = pcall(vim.api.nvim_buf_get_var, vim.api.nvim_win_get_buf(win), "magenta_role")
    return ok
  end
  local target
  local prev = vim.fn.win_getid(vim.fn.winnr("#"))
  if prev ~= 0 and not is_sidebar(prev) then
    target = prev
  else
    for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
      if not is_sidebar(win) and vim.api.nvim_win_get_config(win).relative == "" then
        target = win
        break
      end
    end
  end
  if target then
    vim.api.nvim_set_current_win(target)
  else
    vim.cmd("topleft vsplit")
  end
  edit_without_modelines(path)
  if line and line > 0 then
    local last = vim.api.nvim_buf_line_count(0)
    vim.api.nvim_win_set_cursor(0, { math.min(line, last), 0 })
  end
end

function M.notify(msg, level)
  vim.notify(msg, vim.log.levels[string.upper(level or "info")] or vim.log.levels.INFO)
end

return M
