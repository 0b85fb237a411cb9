-- What the language servers have reported, and the diagnostics tool's
-- wait for it. Servers publish diagnostics asynchronously after a file is
-- opened or changed; a clean file is reported once, as an empty list,
-- which leaves no trace in vim.diagnostic. So the publishDiagnostics
-- handler is wrapped to note which client reported on which version of
-- which buffer, from the first server attach on: setup() arranges that
-- (init.lua), so a report made before the host started still counts.
local lsp = require("magenta.lsp")

local M = {}

local api = vim.api

-- The version of buf's text its clients were last sent. Indexing, not
-- rawget: 0.12 keeps no entry for a buffer unchanged since its didOpen
-- and answers 0 — the version didOpen sent — through the table's
-- metatable; 0.7–0.11 store that 0. A buffer no client follows has no
-- version there; its changedtick stands in (no client waits on it).
local function doc_version(buf)
  local versions = vim.lsp.util and vim.lsp.util.buf_versions
  local v = versions and versions[buf]
  if type(v) == "number" then
    return v
  end
  return api.nvim_buf_get_changedtick(buf)
end

-- reported[buf][client_id] = the version of buf the client last reported on.
local reported = {}
-- Clients seen reporting at all (a server that never publishes, a
-- formatter say, must not make every call wait out the bound), and when
-- each was first asked about.
local publishes = {}
local first_seen = {}
-- Clients that have sent a version: gopls omits version 0 (the text as
-- opened), so an unversioned report of theirs is for version 0.
local versioned = {}
-- Buffers a client was attached to before tracking began (setup() called
-- after the server started), with the buffer's version then.
local attached_before = {}
-- names[client id]: every client seen reporting or attached, so the
-- diagnostics of one that has stopped since are still named.
local names = {}
-- wakers[buf] = { [fn] = true }: edit checks waiting on buf, run after
-- its next report instead of at their next poll.
local wakers = {}

local function note(result, ctx)
  local name = vim.uri_to_fname(result.uri)
  if vim.fn.bufexists(name) == 0 then
    return -- no buffer: nobody asks about it (and none is made here)
  end
  local buf = vim.uri_to_bufnr(result.uri)
  if not api.nvim_buf_is_loaded(buf) then
    -- About the file on disk, or a closed text: not about any text a
    -- later load of the buffer shows (see the BufUnload autocommand in
    -- M.track).
    return
  end
  local id = ctx.client_id
  if names[id] == nil then
    local client = vim.lsp.get_client_by_id(id)
    names[id] = client and client.name or nil
  end
  local version = result.version
  if version ~= nil and version ~= vim.NIL then
    versioned[id] = true
  elseif versioned[id] then
    version = 0
  else
    -- A server that sends no versions reports on the text current when
    -- its report arrives.
    version = doc_version(buf)
  end
  reported[buf] = reported[buf] or {}
  reported[buf][id] = version
  publishes[id] = true
  local waiting = wakers[buf]
  if waiting then
    wakers[buf] = nil
    -- After the handler this wraps has stored the diagnostics.
    vim.schedule(function()
      for fn in pairs(waiting) do
        fn()
      end
    end)
  end
end

-- Records which clients were attached to which buffers before tracking
-- began, but for the client attaching now (it has not reported yet).
local function note_earlier_state(attaching)
  local all = vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
  for _, c in ipairs(all) do
    for buf in pairs(c.id ~= attaching and c.attached_buffers or {}) do
      attached_before[buf] = attached_before[buf] or {}
      attached_before[buf][c.id] = doc_version(buf)
    end
  end
end

--- Wraps the publishDiagnostics handler once, to learn which clients have
--- reported for which version of each buffer. Called from the hook
--- setup() installs (the first LspAttach, with the attaching client's id;
--- on 0.7 the first FileType after vim.lsp loaded), by setup() itself when
--- servers already run, when the host starts, and before a diagnostics
--- call.
function M.track(attaching)
  if M.tracking then
    return
  end
  -- 0.7.2's vim.lsp creates stdpath("cache") (its log's directory) as it
  -- loads, with a mkdir that fails with E739 when the directory appears
  -- in between — and the host creates it at the same moment. Create it
  -- first, and load vim.lsp again once if the first load failed.
  pcall(vim.fn.mkdir, vim.fn.stdpath("cache"), "p")
  local loaded = pcall(function()
    return vim.lsp.handlers
  end) or pcall(function()
    return vim.lsp.handlers
  end)
  if not loaded then
    return -- tried again at the next call
  end
  M.tracking = true
  pcall(note_earlier_state, attaching)
  -- A report is about one load of a buffer: unloading it (an edit check
  -- unloads what it loaded, the user's :bunload) forgets them, or a
  -- later load's version could equal one reported on the old text.
  api.nvim_create_autocmd("BufUnload", {
    group = api.nvim_create_augroup("magenta_lsp_reports_unload", { clear = true }),
    callback = function(ev)
      reported[ev.buf], attached_before[ev.buf] = nil, nil
    end,
  })
  local method = "textDocument/publishDiagnostics"
  local original = vim.lsp.handlers[method]
  vim.lsp.handlers[method] = function(err, result, ctx, config)
    if result and result.uri and ctx and ctx.client_id then
      -- Our bookkeeping must never stop the user's diagnostics.
      pcall(note, result, ctx)
    end
    return original(err, result, ctx, config)
  end
end

-- Whether c's report on buf may have been missed: c was attached to buf
-- before tracking began (setup() ran after the server started) and buf is
-- unchanged since, so c's one report on this text may have come unseen —
-- a clean file's leaves no trace. c's diagnostics shown for buf are such
-- a trace: then the report counts, for the current version.
local function maybe_missed(buf, c, tick)
  local before = attached_before[buf] and attached_before[buf][c.id]
  if before == nil or before ~= tick then
    return false
  end
  local ns = vim.lsp.diagnostic.get_namespace and vim.lsp.diagnostic.get_namespace(c.id)
  if ns and #vim.diagnostic.get(buf, { namespace = ns }) > 0 then
    reported[buf] = reported[buf] or {}
    reported[buf][c.id] = tick
    publishes[c.id] = true
    return false
  end
  return true
end

-- The names of buf's clients that have not reported on its current
-- version (starting ones, then attached ones), and of those whose report
-- may have come before tracking began (not waited for: it does not come
-- again until the text changes).
local function pending_clients(buf, now, wait_ms)
  local pending, unseen = {}, {}
  for _, c in ipairs(lsp._starting(buf)) do
    pending[#pending + 1] = c.name
  end
  local tick = doc_version(buf)
  for _, c in ipairs(lsp._clients(buf)) do
    first_seen[c.id] = first_seen[c.id] or now
    local version = (reported[buf] or {})[c.id]
    if version == nil and maybe_missed(buf, c, tick) then
      unseen[#unseen + 1] = c.name
    else
      version = (reported[buf] or {})[c.id]
      local silent = not publishes[c.id] and now - first_seen[c.id] > wait_ms
      if not silent and version ~= tick then
        pending[#pending + 1] = c.name
      end
    end
  end
  return pending, unseen
end

local function diagnostics_of(bufs)
  local out = {}
  for _, buf in ipairs(bufs) do
    local name = api.nvim_buf_get_name(buf)
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      out[#out + 1] = {
        path = name, line = d.lnum, col = d.col, severity = d.severity,
        message = d.message, source = d.source or "",
      }
    end
  end
  return out
end

local function loaded_buffers()
  local out = {}
  for _, buf in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(buf) then
      out[#out + 1] = buf
    end
  end
  return out
end

--- Diagnostics of one file (path, loaded into a buffer when it is not, so
--- its servers attach or start) or of every loaded buffer (path == "").
--- Waits up to wait_ms until every client attached to each buffer, or
--- starting for it, has reported on the buffer's current version (and up
--- to attach_ms for a server to attach to the one file when it has
--- none), then replies with JSON { items = [{path, line, col, severity,
--- message, source}] (0-based), pending = ["client (path)"], unseen =
--- ["client (path)"] (its report may have come before tracking began),
--- unattached = [path] (the one file had no server at all), served = the
--- number of buffers a server was attached to or starting for }.
function M.diagnostics(id, path, wait_ms, attach_ms)
  M.track()
  local one = path ~= "" and lsp._load_file(path) or nil
  local start = vim.loop.now()
  local deadline = start + wait_ms
  local function attempt()
    local now = vim.loop.now()
    -- Every buffer is listed again each time: one a parallel tool call
    -- loads meanwhile is waited for too.
    local bufs = one and { one } or loaded_buffers()
    local pending, unseen, unattached, served = {}, {}, {}, 0
    for _, buf in ipairs(bufs) do
      if api.nvim_buf_is_valid(buf) then
        local names, missed = pending_clients(buf, now, wait_ms)
        if #lsp._clients(buf) > 0 or #names > 0 then
          served = served + 1
        elseif one then
          -- A server may still be on its way (lspconfig attaches it on a
          -- later loop turn): wait for it as well.
          unattached[#unattached + 1] = api.nvim_buf_get_name(buf)
        end
        for _, name in ipairs(names) do
          pending[#pending + 1] = string.format("%s (%s)", name, api.nvim_buf_get_name(buf))
        end
        for _, name in ipairs(missed) do
          unseen[#unseen + 1] = string.format("%s (%s)", name, api.nvim_buf_get_name(buf))
        end
      end
    end
    local waiting = #pending > 0 or (#unattached > 0 and now < start + attach_ms)
    if waiting and now < deadline then
      vim.defer_fn(attempt, 25)
      return
    end
    if #unattached > 0 then
      lsp._note_no_server(one)
    end
    local live = vim.tbl_filter(api.nvim_buf_is_valid, bufs)
    lsp._reply(id, {
      results = vim.json.encode({
        items = diagnostics_of(live), pending = pending, unseen = unseen, unattached = unattached,
        served = served,
      }),
    })
  end
  attempt()
end

-- Edit checks (pkg/lspverify): a snapshot of one file's diagnostics
-- before an edit and one after, then a release.

-- holds[buf] = { holders, created, listed }: buffers loaded for edit
-- checks, the checks that still use each (by the name each gives), whether
-- the buffer was made for them (wiped at the end) or existed unloaded
-- (unloaded again), and whether it was listed then.
local holds = {}
-- Checks that gave back a hold they never got (their snapshot came late,
-- after an abort): a late snapshot of theirs takes none.
local gone = {}
-- File types, and file name extensions (0.7 cannot type a file without
-- loading it), a buffer loaded for a check got no server for: later
-- checks of such files load nothing.
local serverless = {}

-- The extension of path, or its name when it has none ("Makefile").
local function extension(path)
  local name = vim.fn.fnamemodify(path, ":t")
  return "." .. (name:match("%.([^.]+)$") or name)
end

-- The buffer named path, loaded or not.
local function buffer_of(path)
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_get_name(b) == path then
      return b
    end
  end
  return nil
end

-- buf's diagnostics, each with the name of the client that reported it
-- ("" for other sources: linters, a pull namespace).
local function named_items(buf, path)
  local by_ns = {}
  for id, name in pairs(names) do
    local ok, ns = pcall(vim.lsp.diagnostic.get_namespace, id, false)
    if ok and ns then
      by_ns[ns] = name
    end
  end
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    out[#out + 1] = {
      path = path, line = d.lnum, col = d.col, severity = d.severity,
      message = d.message, source = d.source or "", server = by_ns[d.namespace] or "",
    }
  end
  return out
end

-- Whether loading path cannot bring a server: none runs and the
-- configuration starts none for the workspace's files, or a file of its
-- type got none before (0.8+ tells the type without loading).
local function hopeless(path)
  if not lsp.running() and not lsp.available() then
    return true
  end
  if serverless[extension(path)] then
    return true
  end
  if vim.filetype and vim.filetype.match then
    local ok, ft = pcall(vim.filetype.match, { filename = path })
    return ok and ft ~= nil and serverless[ft] == true
  end
  return false
end

local function encode(id, answer)
  lsp._reply(id, { results = vim.json.encode(answer) })
end

--- Gives back holder's hold on path's buffer, if it has one. The last
--- one unloads the buffer — wipes it when the check made it — unless it
--- is no longer only the checks': shown in a window, listed since,
--- modified.
function M.release(path, holder)
  local buf = buffer_of(path)
  local h = buf and holds[buf]
  if not h or not h.holders[holder] then
    gone[holder] = true
    return
  end
  h.holders[holder] = nil
  if next(h.holders) ~= nil then
    return
  end
  holds[buf] = nil
  if not api.nvim_buf_is_loaded(buf) or vim.bo[buf].modified or vim.bo[buf].buflisted ~= h.listed
    or #vim.fn.win_findbuf(buf) > 0 then
    return
  end
  pcall(api.nvim_buf_delete, buf, { unload = not h.created })
end

--- One file's diagnostics for an edit check. A file no buffer has
--- loaded is loaded into a hidden buffer (bufadd + bufload: no window,
--- jump list or alternate file changes), so the user's configuration
--- attaches its servers, and held until release(). Waits up to wait_ms
--- for every client attached to (or starting for) the buffer to report
--- on its current text — and, for a buffer loaded now, up to attach_ms
--- for one to attach — then replies with JSON { items = [{path, line,
--- col, severity, message, source, server}] (0-based), servers (the
--- attached clients), pending (not reported on the current text), silent
--- (of those, not reported on this load at all), absent (no such file),
--- held (holder holds the buffer: release() it) }.
function M.snapshot(id, path, wait_ms, attach_ms, holder)
  M.track()
  if gone[holder] then
    gone[holder] = nil
    return encode(id, {})
  end
  local buf = buffer_of(path)
  local held, fresh = false, false
  if buf and api.nvim_buf_is_loaded(buf) then
    if holds[buf] then -- another check's (or this one's): share it
      holds[buf].holders[holder] = true
      held = true
    end
  else
    if not vim.loop.fs_stat(path) then
      return encode(id, { absent = true })
    end
    if hopeless(path) then
      return encode(id, {})
    end
    local created = buf == nil
    buf = vim.fn.bufadd(path)
    holds[buf] = { holders = { [holder] = true }, created = created, listed = vim.bo[buf].buflisted }
    held, fresh = true, true
    -- No swap file: another Neovim editing the file would otherwise stop
    -- this one at an ATTENTION prompt about a file the user never opened.
    vim.bo[buf].swapfile = false
    local ok, err = pcall(vim.fn.bufload, buf)
    if not ok then
      M.release(path, holder)
      gone[holder] = nil
      return lsp._reply(id, { error = string.format("loading %s: %s", path, tostring(err)) })
    end
  end
  local start = vim.loop.now()
  -- A report wakes the check at once (wakers); a poll every 25 ms sees
  -- servers attach, start and stop, and the deadline.
  local timer, finished
  local attempt
  local function finish(answer)
    finished = true
    if wakers[buf] then
      wakers[buf][attempt] = nil
    end
    if timer then
      timer:stop()
      timer:close()
    end
    encode(id, answer)
  end
  attempt = function()
    if finished then
      return
    end
    if not api.nvim_buf_is_loaded(buf) then
      return finish({ held = held }) -- unloaded meanwhile: nothing to say
    end
    local now = vim.loop.now()
    local pending, unseen = pending_clients(buf, now, wait_ms)
    local attached = lsp._clients(buf)
    local none = #attached == 0 and #pending == 0
    local waiting = #pending > 0 or (none and fresh and now < start + attach_ms)
    if waiting and now < start + wait_ms then
      wakers[buf] = wakers[buf] or {}
      wakers[buf][attempt] = true
      if not timer then
        timer = vim.loop.new_timer()
        timer:start(25, 25, vim.schedule_wrap(attempt))
      end
      return
    end
    if none and fresh then
      local ft = vim.bo[buf].filetype
      if ft ~= "" then
        serverless[ft] = true
      end
      serverless[extension(path)] = true
      lsp._note_no_server(buf)
    end
    -- Silent: no report on this load of buf at all (starting, cold, or
    -- a server that publishes nothing), so no list to compare with;
    -- a report that may have come unseen counts as made.
    local servers, silent, seen = {}, {}, {}
    for _, name in ipairs(unseen) do
      seen[name] = true
    end
    for _, c in ipairs(lsp._starting(buf)) do
      silent[#silent + 1] = c.name
    end
    for _, c in ipairs(attached) do
      names[c.id] = c.name
      servers[#servers + 1] = c.name
      if (reported[buf] or {})[c.id] == nil and not seen[c.name] then
        silent[#silent + 1] = c.name
      end
    end
    finish({
      items = named_items(buf, path), servers = servers, pending = pending, silent = silent, held = held,
    })
  end
  attempt()
end

return M
