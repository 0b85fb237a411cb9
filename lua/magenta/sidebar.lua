-- The chat sidebar: a read-only display buffer the host draws, and an
-- input buffer the user types into. The buffers outlive their windows,
-- so toggling never loses what was typed.
local config = require("magenta.config")

local protocol = require("magenta.protocol")
local M = {}

M.DISPLAY_NAME = "magenta://display"
M.INPUT_NAME = "magenta://input"

local state = { display = nil, input = nil, tab = nil }

local api = vim.api

local function valid(buf)
  return buf ~= nil and api.nvim_buf_is_valid(buf)
end

local function host()
  return require("magenta.host")
end

local function scratch(name, role)
  local existing = vim.fn.bufnr("^" .. name .. "$")
  local buf = existing > 0 and existing or api.nvim_create_buf(false, true)
  if existing <= 0 then
    -- Named without BufFilePre/BufFilePost: nothing has business with
    -- this scratch buffer's name, and Neovim's editorconfig plugin would
    -- look for .editorconfig files for it (~1 ms of the first toggle,
    -- more with other plugins hooked there).
    vim.cmd(string.format("noautocmd lua vim.api.nvim_buf_set_name(%d, %q)", buf, name))
  end
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  api.nvim_buf_set_var(buf, "magenta_role", role)
  return buf
end

local function map(buf, lhs, fn, desc, modes)
  if type(lhs) == "string" and lhs ~= "" then
    vim.keymap.set(modes or "n", lhs, fn, { buffer = buf, nowait = true, silent = true, desc = desc })
  end
end

local function keymaps(group)
  local km = config.options.keymaps
  local keys = type(km) == "table" and km[group]
  return type(keys) == "table" and keys or {}
end

-- The keys both sidebar buffers share (keymaps.sidebar), handled here.
local function map_sidebar_keys(buf)
  local keys = keymaps("sidebar")
  map(buf, keys.close, function()
    M.close()
  end, "magenta: close the sidebar")
  map(buf, keys.help, function()
    require("magenta.keys").help()
  end, "magenta: show the sidebar's keys")
end

-- Whether an approval may be waiting for a display key: one is drawn in
-- buf (only real requests' choices get MagentaApprovalChoice), or the
-- host says one waits in any thread. When the host cannot tell, it is
-- taken to be waiting: a key meant to answer must never start typing.
local function approval_may_wait(buf)
  local ns = require("magenta.ui").ns
  for _, m in ipairs(api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
    if m[4] and m[4].hl_group == "MagentaApprovalChoice" then
      return true
    end
  end
  if not host().running() then
    return false
  end
  local res = host().request(protocol.requests.approvals)
  return not (type(res) == "table" and res.pending == 0)
end

-- Display keys that answer approvals: when one of them is also an insert
-- key (the default approve "a", always "A"), it goes to the input only
-- while no approval waits anywhere. While one waits it stays the
-- approval key even off the request: the host then says where to put
-- the cursor (or in which thread the request is) instead of the key
-- silently starting to type into the input.
M.APPROVAL_KEYS = { approve = true, always = true, deny = true }
local approval_keys = M.APPROVAL_KEYS

local function create_display()
  local buf = scratch(M.DISPLAY_NAME, "display")
  vim.bo[buf].modifiable = false
  vim.bo[buf].undolevels = -1
  local keys = keymaps("display")
  local insert = {}
  for _, lhs in ipairs(type(keymaps("sidebar").insert) == "table" and keymaps("sidebar").insert or {}) do
    insert[lhs] = true
  end
  for key, lhs in pairs(keys) do
    local function forward()
      local line = api.nvim_win_get_cursor(0)[1] - 1
      -- The frame this buffer shows: the host resolves the key on it,
      -- even if a newer frame is on its way.
      local ok, frame = pcall(api.nvim_buf_get_var, buf, "magenta_frame")
      host().notify(protocol.events.key, { key = key, line = line, frame = ok and frame or 0 })
    end
    if insert[lhs] and approval_keys[key] then
      map(buf, lhs, function()
        if approval_may_wait(buf) then
          forward()
        else
          M.focus_input()
        end
      end, "magenta: " .. key .. " (no approval waiting: go to the input)")
    else
      map(buf, lhs, forward, "magenta: " .. key)
    end
    -- A display key that is not an approval key keeps its meaning.
    insert[lhs] = nil
  end
  for lhs in pairs(insert) do
    map(buf, lhs, function()
      M.focus_input()
    end, "magenta: go to the input")
  end
  map_sidebar_keys(buf)
  api.nvim_create_autocmd("BufWipeout", {
    buffer = buf,
    once = true,
    callback = function()
      state.display = nil
      host().notify_if_running(protocol.events.display, { buf = 0 })
    end,
  })
  return buf
end

local function create_input()
  local buf = scratch(M.INPUT_NAME, "input")
  vim.bo[buf].omnifunc = "magenta#mentions#omnifunc" -- @-mentions (:help magenta-mentions)
  -- "@" is a keyword character here, so completion plugins whose trigger
  -- is a keyword (cmp-omni's \k\+) start on "@" alone. The omnifunc
  -- finds the mention's start itself and does not read 'iskeyword'.
  if not vim.tbl_contains(vim.split(vim.bo[buf].iskeyword, ",", { plain = true }), "@-@") then
    vim.bo[buf].iskeyword = vim.bo[buf].iskeyword .. ",@-@"
  end
  local keys = keymaps("input")
  map(buf, keys.send, M.send, "magenta: send")
  map(buf, keys.send_insert, M.send, "magenta: send", { "i", "n" })
  map_sidebar_keys(buf)
  api.nvim_create_autocmd("BufWipeout", {
    buffer = buf,
    once = true,
    callback = function()
      state.input = nil
    end,
  })
  return buf
end

M.FILETYPES = { display = "magenta", input = "magenta-input" }

-- Setting 'filetype' runs the FileType autocommands and searches the
-- runtimepath for ftplugins (~1-2 ms per buffer with no plugins, more
-- with many), so it is set once the first frame is drawn (load_syntax),
-- or 100 ms after the buffers were made if no frame comes: not before
-- the windows appear, and not while the host's first frame is on its
-- way (Neovim would answer it late). The user's ftplugins for these
-- filetypes run after ours (omnifunc, iskeyword), so they can change
-- them.
local function set_filetypes()
  for role, buf in pairs({ display = state.display, input = state.input }) do
    if valid(buf) and vim.bo[buf].filetype == "" then
      vim.bo[buf].filetype = M.FILETYPES[role]
    end
  end
end

-- Markdown syntax takes 7-9 ms per buffer to load (it pulls in HTML), so
-- it is set once the first frame is on screen (ui.apply calls this), not
-- on the way to the first frame.
local syntax_pending = false

function M.load_syntax()
  if not syntax_pending then
    return
  end
  syntax_pending = false
  vim.schedule(function()
    set_filetypes()
    for _, buf in ipairs({ state.display, state.input }) do
      if valid(buf) and vim.bo[buf].syntax == "" then
        vim.bo[buf].syntax = "markdown"
      end
    end
  end)
end

local function ensure_buffers()
  local fresh, made = false, false
  if not valid(state.display) then
    state.display = create_display()
    fresh, made = true, true
  end
  if not valid(state.input) then
    state.input = create_input()
    made = true
  end
  if made then
    -- After the first frame (load_syntax), or shortly when none comes.
    vim.defer_fn(set_filetypes, 100)
  end
  syntax_pending = syntax_pending or fresh or vim.bo[state.input].syntax == ""
  return fresh
end

function M.display_buf()
  return valid(state.display) and state.display or nil
end

function M.input_buf()
  return valid(state.input) and state.input or nil
end

local function wins_of(buf)
  if not valid(buf) then
    return {}
  end
  return vim.fn.win_findbuf(buf)
end

function M.is_open()
  return #wins_of(state.display) > 0 or #wins_of(state.input) > 0
end

--- What the host needs to know about the sidebar when it (re)starts.
function M.attach_payload()
  return { display = M.display_buf() or 0 }
end

local function size(value, total)
  if value <= 1 then
    return math.max(1, math.floor(total * value))
  end
  return math.floor(value)
end

local function style(win, fixed)
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  vim.wo[win].number = false
  vim.wo[win].relativenumber = false
  vim.wo[win].signcolumn = "no"
  vim.wo[win].foldcolumn = "0"
  vim.wo[win].spell = false
  if fixed == "width" then
    vim.wo[win].winfixwidth = true
  elseif fixed == "height" then
    vim.wo[win].winfixheight = true
  end
end

function M.open()
  if M.is_open() then
    return
  end
  -- The host's start-up is the longest part of a first toggle: it
  -- starts first (:Magenta toggle started it already, before this
  -- module loaded) and overlaps everything below. The attach, which
  -- names the display buffer the host draws the new thread's top into,
  -- follows the buffers.
  host().prestart()
  local fresh = ensure_buffers()
  local was_attached = host().running()
  local chan = host().channel()
  require("magenta.ui").define_highlights()
  local opts = config.options.sidebar
  local pos = opts.position
  if pos == "tab" then
    vim.cmd("tabnew")
    state.tab = api.nvim_get_current_tabpage()
    api.nvim_win_set_buf(0, state.display)
  elseif pos == "left" or pos == "right" then
    vim.cmd((pos == "left" and "topleft" or "botright") .. " vertical sbuffer " .. state.display)
    api.nvim_win_set_width(0, size(opts.width, vim.o.columns))
  else
    vim.cmd((pos == "above" and "topleft" or "botright") .. " sbuffer " .. state.display)
    api.nvim_win_set_height(0, size(opts.height, vim.o.lines))
  end
  local display_win = api.nvim_get_current_win()
  style(display_win, (pos == "left" or pos == "right") and "width" or nil)
  vim.cmd("belowright sbuffer " .. state.input)
  local input_win = api.nvim_get_current_win()
  api.nvim_win_set_height(input_win, opts.inputHeight)
  style(input_win, "height")
  -- Start at the end of the conversation.
  api.nvim_win_set_cursor(display_win, { api.nvim_buf_line_count(state.display), 0 })
  if fresh and chan and was_attached then -- a new host's attach named it
    host().notify(protocol.events.display, { buf = state.display })
  end
end

function M.close()
  if state.tab and api.nvim_tabpage_is_valid(state.tab) and #api.nvim_list_tabpages() > 1 then
    local nr = api.nvim_tabpage_get_number(state.tab)
    vim.cmd("tabclose " .. nr)
    state.tab = nil
    return
  end
  for _, buf in ipairs({ state.display, state.input }) do
    for _, win in ipairs(wins_of(buf)) do
      if #api.nvim_list_wins() > 1 then
        api.nvim_win_close(win, false)
      else
        -- The sidebar is all that is left: show an empty buffer instead.
        api.nvim_win_set_buf(win, api.nvim_create_buf(true, false))
      end
    end
  end
end

function M.toggle()
  if M.is_open() then
    M.close()
  else
    M.open()
  end
end

--- Puts a message the host could not take (a read-only thread) back into
--- the input buffer, above whatever was typed since, so nothing is lost.
function M.restore_input(text)
  if type(text) ~= "string" or text == "" then
    return
  end
  ensure_buffers()
  local lines = vim.split(text, "\n", { plain = true })
  local now = api.nvim_buf_get_lines(state.input, 0, -1, false)
  if #now > 1 or (now[1] or "") ~= "" then
    lines[#lines + 1] = ""
    vim.list_extend(lines, now)
  end
  api.nvim_buf_set_lines(state.input, 0, -1, false, lines)
end

--- Moves to the input window (splitting one below the display when the
--- input is not shown) and starts insert mode at the end of its text.
function M.focus_input()
  ensure_buffers()
  local win
  for _, w in ipairs(wins_of(state.input)) do
    if api.nvim_win_get_tabpage(w) == api.nvim_get_current_tabpage() then
      win = w
      break
    end
  end
  if not win then
    vim.cmd("belowright sbuffer " .. state.input)
    win = api.nvim_get_current_win()
    api.nvim_win_set_height(win, config.options.sidebar.inputHeight)
    style(win, "height")
  end
  api.nvim_set_current_win(win)
  local last = api.nvim_buf_line_count(state.input)
  local text = api.nvim_buf_get_lines(state.input, last - 1, last, false)[1] or ""
  api.nvim_win_set_cursor(win, { last, #text })
  vim.cmd("startinsert!")
end

--- Sends what the input buffer holds, and clears it once the host has it.
function M.send()
  local no_profile = config.no_profile_error()
  if no_profile then
    vim.notify(no_profile .. " The message stays in the input.", vim.log.levels.ERROR)
    return
  end
  ensure_buffers()
  local lines = api.nvim_buf_get_lines(state.input, 0, -1, false)
  local text = table.concat(lines, "\n")
  if vim.trim(text) == "" then
    return
  end
  -- @-mentions expand now: @file/@buf attach context files first (events
  -- keep their order), the others go with the message.
  local paths, attachments = require("magenta.mentions").expand(text)
  if #paths > 0 and not host().notify(protocol.events.context_files, { paths = paths }) then
    return
  end
  if host().notify(protocol.events.send, { text = text, attachments = attachments }) then
    api.nvim_buf_set_lines(state.input, 0, -1, false, {})
  end
end

return M
