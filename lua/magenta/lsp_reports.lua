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

local function note(result, ctx)
  local name = vim.uri_to_fname(result.uri)
  if vim.fn.bufexists(name) == 0 then
    return -- no buffer: nobody asks about it (and none is made here)
  end
  local buf = vim.uri_to_bufnr(result.uri)
  local id = ctx.client_id
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

return M
