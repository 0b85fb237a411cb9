-- Inline edits: a floating prompt asks what to change in the selected
-- lines, the host asks the model once (pkg/inline), and the proposal is
-- shown in place as a diff: removed lines highlighted, added lines as
-- virtual lines. The buffer is untouched until the user accepts, which
-- replaces the lines in one nvim_buf_set_lines call (one undo step).
local config = require("magenta.config")

local protocol = require("magenta.protocol")
local M = {}

local api = vim.api
local ns = api.nvim_create_namespace("magenta_inline")

-- The prompt's filetype (the chat input's is "magenta-input"), for
-- FileType autocmds and completion plugins' per-filetype settings.
M.PROMPT_FILETYPE = "magenta-inline"

-- The prompt's label: its window's title on 0.9+, a float of its own
-- over the top border before (see open_label).
M.PROMPT_LABEL = " magenta: what should change? (<CR> sends, <Esc> cancels) "

-- CONTEXT_LINES lines on each side of the selection go with the request
-- (the host trims to its own inline.ContextLines, the number the model is
-- told).
M.CONTEXT_LINES = 50

-- Edits by buffer: { id, phase = "running"|"proposed", lines = the
-- original selection, mark = extmark spanning it, proposal, keys }.
local edits = {}
local last_id = 0

local function notify(msg, level)
  vim.notify("magenta: " .. msg, level or vim.log.levels.ERROR)
end

local function highlights()
  -- :highlight default link: nvim_set_hl has no "default" on 0.7.
  vim.cmd("highlight default link MagentaInlineRemoved DiffDelete")
  vim.cmd("highlight default link MagentaInlineAdded DiffAdd")
  vim.cmd("highlight default link MagentaInlineHint Comment")
  vim.cmd("highlight default link MagentaInlineLabel Title")
end

local function keys()
  local km = config.options.keymaps
  local k = km and km.inline or {}
  return { accept = k and k.accept, reject = k and k.reject }
end

--- Whether buf has an inline edit running or proposed (tests, :Magenta abort).
function M.state(buf)
  local e = edits[buf or api.nvim_get_current_buf()]
  return e and e.phase or nil
end

-- The selection's rows now (0-based, end inclusive): the extmark follows
-- edits above it.
local function span(buf, e)
  local m = api.nvim_buf_get_extmark_by_id(buf, ns, e.mark, { details = true })
  if not m or not m[1] then
    return nil
  end
  return m[1], (m[3] and m[3].end_row) or m[1]
end

local function split(text)
  local lines = vim.split(text, "\n", { plain = true })
  if #lines > 1 and lines[#lines] == "" then
    lines[#lines] = nil -- the text's final newline
  end
  return lines
end

-- A buffer-local map the proposal's keys shadow, to put back afterwards.
local function saved_map(buf, lhs)
  local ok, m = pcall(api.nvim_buf_call, buf, function()
    return vim.fn.maparg(lhs, "n", false, true)
  end)
  if ok and type(m) == "table" and m.buffer == 1 then
    return m
  end
end

local function restore_map(buf, m)
  pcall(api.nvim_buf_set_keymap, buf, "n", m.lhs, m.rhs or "", {
    noremap = m.noremap == 1,
    silent = m.silent == 1,
    expr = m.expr == 1,
    nowait = m.nowait == 1,
    callback = m.callback,
    desc = m.desc,
  })
end

local function clear(buf)
  local e = edits[buf]
  edits[buf] = nil
  if not e or not api.nvim_buf_is_valid(buf) then
    return
  end
  api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  for _, lhs in ipairs(e.keys or {}) do
    pcall(vim.keymap.del, "n", lhs, { buffer = buf })
  end
  for _, saved in ipairs(e.saved or {}) do
    restore_map(buf, saved)
  end
end

-- Completion plugins take <CR> to confirm an item, so in the prompt the
-- first <CR> would complete a word instead of sending. Unless the user
-- keeps completion there (inline.completion = true), it is switched off
-- for the prompt's buffer before Insert mode starts: nvim-cmp through
-- setup.buffer (when it is installed), blink.cmp (and others that read
-- it) through b:completion = false.
local function disable_completion(pbuf)
  local o = config.options.inline
  if type(o) == "table" and o.completion == true then
    return
  end
  api.nvim_buf_set_var(pbuf, "completion", false)
  local ok, cmp = pcall(require, "cmp")
  local setup = ok and type(cmp) == "table" and cmp.setup
  if type(setup) == "table" and type(setup.buffer) == "function" then
    -- setup.buffer configures the current buffer.
    api.nvim_buf_call(pbuf, function()
      pcall(setup.buffer, { enabled = false })
    end)
  end
end

-- Where the prompt's box (height × width, border included) goes when the
-- label is a float of its own: editor cells, below the cursor line or
-- above it when it does not fit below. Computed here rather than left to
-- relative = "cursor", which Neovim moves to fit the screen, so that the
-- label lands exactly on the box's top border.
local function box_position(height, width)
  local pos = vim.fn.win_screenpos(0)
  local cursor_row = pos[1] - 1 + vim.fn.winline() - 1
  local cursor_col = pos[2] - 1 + vim.fn.wincol() - 1
  local row = cursor_row + 1
  if row + height > vim.o.lines - vim.o.cmdheight then
    row = math.max(0, cursor_row - height)
  end
  return row, math.max(0, math.min(cursor_col, vim.o.columns - width))
end

-- Before 0.9 a float has no title: the label is a one-line float without
-- border and focus drawn over the prompt's top border (editor-relative:
-- anchoring it to a float window is not placed right on 0.7).
local function open_label(row, col, width)
  local lbuf = api.nvim_create_buf(false, true)
  vim.bo[lbuf].bufhidden = "wipe"
  api.nvim_buf_set_lines(lbuf, 0, -1, false, { M.PROMPT_LABEL })
  local lwin = api.nvim_open_win(lbuf, false, {
    relative = "editor",
    row = row,
    col = col + 1,
    width = math.max(1, math.min(vim.fn.strdisplaywidth(M.PROMPT_LABEL), width)),
    height = 1,
    style = "minimal",
    focusable = false,
    zindex = 51, -- over the prompt (50)
  })
  api.nvim_win_set_option(lwin, "winhighlight", "Normal:MagentaInlineLabel,NormalFloat:MagentaInlineLabel")
  return lwin
end

local function open_prompt(on_submit)
  highlights()
  local pbuf = api.nvim_create_buf(false, true)
  vim.bo[pbuf].bufhidden = "wipe"
  vim.bo[pbuf].filetype = M.PROMPT_FILETYPE
  local width = math.max(20, math.min(80, vim.o.columns - 4))
  local opts = {
    relative = "cursor",
    row = 1,
    col = 0,
    width = width,
    height = 1,
    style = "minimal",
    border = "rounded",
  }
  local label
  if vim.fn.has("nvim-0.9") == 1 then
    opts.title = M.PROMPT_LABEL
  else
    opts.relative = "editor"
    opts.row, opts.col = box_position(3, width + 2)
    label = open_label(opts.row, opts.col, width)
  end
  local win = api.nvim_open_win(pbuf, true, opts)
  if label then
    -- However the prompt closes (<Esc>, :q, <C-w>c), its label goes too.
    api.nvim_create_autocmd("WinClosed", {
      pattern = tostring(win),
      once = true,
      callback = function()
        if api.nvim_win_is_valid(label) then
          api.nvim_win_close(label, true)
        end
      end,
    })
  end
  disable_completion(pbuf)
  local function close()
    if api.nvim_win_is_valid(win) then
      api.nvim_win_close(win, true)
    end
    vim.cmd("stopinsert")
  end
  local function submit()
    local text = vim.trim(table.concat(api.nvim_buf_get_lines(pbuf, 0, -1, false), "\n"))
    close()
    if text ~= "" then
      on_submit(text)
    end
  end
  for _, mode in ipairs({ "n", "i" }) do
    vim.keymap.set(mode, "<CR>", submit, { buffer = pbuf, nowait = true, silent = true })
    vim.keymap.set(mode, "<Esc>", close, { buffer = pbuf, nowait = true, silent = true })
  end
  vim.cmd("startinsert")
  return pbuf
end

--- Starts an inline edit of lines line1..line2 (1-based) of the current
--- buffer: opens the prompt; the request goes when it is submitted.
--- Returns the prompt's buffer, or nil after telling the user why not.
function M.start(line1, line2)
  local buf = api.nvim_get_current_buf()
  if not line1 or not line2 or line1 < 1 then
    return notify("inline-edit needs a selection: select lines in visual mode, or give a range")
  end
  if vim.bo[buf].buftype ~= "" or api.nvim_buf_get_name(buf) == "" then
    return notify("inline-edit works on file buffers only")
  end
  if not vim.bo[buf].modifiable then
    return notify("this buffer is not modifiable")
  end
  if edits[buf] then
    return notify("an inline edit is already under way in this buffer (a/d to answer it, :Magenta abort to stop it)")
  end
  return open_prompt(function(prompt)
    M.request(buf, line1, line2, prompt)
  end)
end

--- Sends the request (the prompt's submit; tests call it directly).
function M.request(buf, line1, line2, prompt)
  if not api.nvim_buf_is_valid(buf) or line2 > api.nvim_buf_line_count(buf) then
    return notify("the selection is gone")
  end
  highlights()
  last_id = last_id + 1
  local lines = api.nvim_buf_get_lines(buf, line1 - 1, line2, false)
  local before = api.nvim_buf_get_lines(buf, math.max(0, line1 - 1 - M.CONTEXT_LINES), line1 - 1, false)
  local after = api.nvim_buf_get_lines(buf, line2, line2 + M.CONTEXT_LINES, false)
  local last = lines[#lines] or ""
  local mark = api.nvim_buf_set_extmark(buf, ns, line1 - 1, 0, {
    end_row = line2 - 1,
    end_col = #last,
    virt_text = { { "magenta: editing… (:Magenta abort stops)", "MagentaInlineHint" } },
    virt_text_pos = "eol",
  })
  edits[buf] = { id = last_id, phase = "running", lines = lines, mark = mark }
  local id = last_id
  -- A buffer wiped while its edit runs stops the request.
  api.nvim_create_autocmd("BufWipeout", {
    buffer = buf,
    once = true,
    callback = function()
      local e = edits[buf]
      if e and e.id == id then
        edits[buf] = nil
        if e.phase == "running" then
          require("magenta.host").notify_if_running(protocol.events.inline_abort, { buf = buf })
        end
      end
    end,
  })
  local ok = require("magenta.host").notify(protocol.events.inline_edit, {
    buf = buf,
    id = last_id,
    path = vim.fn.fnamemodify(api.nvim_buf_get_name(buf), ":."),
    filetype = vim.bo[buf].filetype,
    start = line1,
    ["end"] = line2,
    selection = table.concat(lines, "\n"),
    before = table.concat(before, "\n"),
    after = table.concat(after, "\n"),
    prompt = prompt,
  })
  if not ok then
    clear(buf)
  end
end

-- Shows proposal against the selection at rows first..(first+#old-1):
-- per hunk of a line diff, the removed lines highlighted and the added
-- lines as virtual lines below them (above the first row when the hunk
-- adds at the top).
local function show(buf, first, old, new)
  local a = table.concat(old, "\n") .. "\n"
  local b = table.concat(new, "\n") .. "\n"
  local hunks = vim.diff(a, b, { result_type = "indices" })
  for _, h in ipairs(hunks) do
    local sa, ca, sb, cb = h[1], h[2], h[3], h[4]
    for i = 0, ca - 1 do
      local row = first + sa - 1 + i
      api.nvim_buf_set_extmark(buf, ns, row, 0, {
        end_row = row,
        end_col = #old[sa + i],
        hl_group = "MagentaInlineRemoved",
        hl_eol = true,
      })
    end
    if cb > 0 then
      local virt = {}
      for i = sb, sb + cb - 1 do
        virt[#virt + 1] = { { new[i] == "" and " " or new[i], "MagentaInlineAdded" } }
      end
      -- With nothing removed, sa is the line the lines go after (0: before the first).
      local anchor = ca > 0 and (first + sa + ca - 2) or (first + sa - 1)
      if anchor < first then
        api.nvim_buf_set_extmark(buf, ns, first, 0, { virt_lines = virt, virt_lines_above = true })
      else
        api.nvim_buf_set_extmark(buf, ns, anchor, 0, { virt_lines = virt })
      end
    end
  end
  local k = keys()
  local hint = string.format(
    "magenta: %s accepts, %s rejects%s",
    k.accept or "accept",
    k.reject or "reject",
    #hunks == 0 and " (no change proposed)" or ""
  )
  api.nvim_buf_set_extmark(buf, ns, first, 0, { virt_text = { { hint, "MagentaInlineHint" } }, virt_text_pos = "eol" })
end

--- Called by the host with the replacement as far as it has streamed:
--- shown below the selection until the outcome arrives.
function M.on_partial(buf, id, text)
  local e = edits[buf]
  if not e or e.id ~= id or e.phase ~= "running" or not api.nvim_buf_is_valid(buf) then
    return
  end
  local _, last = span(buf, e)
  if not last then
    return
  end
  local virt = {}
  for _, l in ipairs(split(text)) do
    virt[#virt + 1] = { { l == "" and " " or l, "MagentaInlineAdded" } }
  end
  e.preview = api.nvim_buf_set_extmark(buf, ns, last, 0, { id = e.preview, virt_lines = virt })
end

--- Called by the host with the outcome of edit id: the replacement text,
--- or an error message.
function M.on_result(buf, id, text, err)
  local e = edits[buf]
  if not e or e.id ~= id or e.phase ~= "running" or not api.nvim_buf_is_valid(buf) then
    return -- aborted, or the buffer is gone
  end
  if err ~= "" then
    clear(buf)
    return notify("inline edit failed: " .. err)
  end
  local first, last = span(buf, e)
  if not first or last - first + 1 ~= #e.lines then
    clear(buf)
    return notify("inline edit: the selection changed while the model worked; nothing was changed")
  end
  -- Only the span mark stays; the running hint goes.
  api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  e.mark = api.nvim_buf_set_extmark(buf, ns, first, 0, { end_row = last, end_col = #(e.lines[#e.lines] or "") })
  e.phase, e.proposal = "proposed", split(text)
  show(buf, first, e.lines, e.proposal)
  local k = keys()
  e.keys, e.saved = {}, {}
  local function bind(lhs, fn, desc)
    if lhs then
      e.saved[#e.saved + 1] = saved_map(buf, lhs)
      vim.keymap.set("n", lhs, fn, { buffer = buf, nowait = true, silent = true, desc = desc })
      e.keys[#e.keys + 1] = lhs
    end
  end
  bind(k.accept, function()
    M.accept(buf)
  end, "magenta: accept the inline edit")
  bind(k.reject, function()
    M.reject(buf)
  end, "magenta: reject the inline edit")
end

--- Replaces the selection with the proposal in one undo step, unless the
--- selected lines changed since the request (then nothing changes).
function M.accept(buf)
  buf = buf or api.nvim_get_current_buf()
  local e = edits[buf]
  if not e or e.phase ~= "proposed" then
    return notify("no inline edit to accept here")
  end
  local first, last = span(buf, e)
  local now = first and api.nvim_buf_get_lines(buf, first, last + 1, false)
  clear(buf)
  if not now or not vim.deep_equal(now, e.lines) then
    return notify("inline edit: the selected lines changed since the edit was asked for; nothing was changed")
  end
  api.nvim_buf_set_lines(buf, first, last + 1, false, e.proposal)
end

--- Drops the proposal; the buffer stays as it is.
function M.reject(buf)
  buf = buf or api.nvim_get_current_buf()
  if not edits[buf] then
    return notify("no inline edit to reject here")
  end
  clear(buf)
end

--- :Magenta abort in a buffer with an inline edit: stops a running one
--- (or drops a proposal). Returns false when there is none here.
function M.abort(buf)
  buf = buf or api.nvim_get_current_buf()
  local e = edits[buf]
  if not e then
    return false
  end
  if e.phase == "running" then
    require("magenta.host").notify(protocol.events.inline_abort, { buf = buf })
  end
  clear(buf)
  notify("inline edit stopped", vim.log.levels.INFO)
  return true
end

return M
