-- The LSP adapter's Neovim half: asks the language servers the user's own
-- configuration attached, never starting servers of its own. Requests are
-- asynchronous: request() returns at once and the answer comes back to the
-- host as an "lsp_result" event. Called over RPC by pkg/lsp.
local M = {}

local api = vim.api

local capability = {
  ["textDocument/hover"] = "hoverProvider",
  ["textDocument/references"] = "referencesProvider",
  ["textDocument/definition"] = "definitionProvider",
  ["textDocument/typeDefinition"] = "typeDefinitionProvider",
}

local function clients(buf)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = buf })
  end
  local out = {}
  for _, c in pairs(vim.lsp.buf_get_clients(buf)) do -- 0.7
    out[#out + 1] = c
  end
  return out
end

local function supporting(buf, method)
  local out = {}
  for _, c in ipairs(clients(buf)) do
    local caps = c.server_capabilities or {}
    if caps[capability[method]] then
      out[#out + 1] = c
    end
  end
  return out
end

-- client:request on 0.11+, client.request before.
local function send(client, method, params, handler, buf)
  if vim.fn.has("nvim-0.11") == 1 then
    return client:request(method, params, handler, buf)
  end
  return client.request(method, params, handler, buf)
end

-- The position in the client's encoding for a 0-based line and byte column.
local function position(buf, line, col, client)
  local text = api.nvim_buf_get_lines(buf, line, line + 1, false)[1] or ""
  col = math.min(col, #text)
  local enc = client.offset_encoding or "utf-16"
  if enc == "utf-8" then
    return { line = line, character = col }
  end
  local utf32, utf16 = vim.str_utfindex(text, col)
  return { line = line, character = enc == "utf-32" and utf32 or utf16 }
end

local function reply(id, payload)
  payload.id = id
  require("magenta.host").notify_if_running("lsp_result", payload)
end

--- Whether any language server runs (the LSP tools are offered only
--- then). Never loads vim.lsp: when nothing loaded it, no server runs.
function M.running()
  if not package.loaded["vim.lsp"] then
    return false
  end
  local all = vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
  return #all > 0
end

--- Loads path into a buffer (so the user's configuration attaches its
--- servers), waits up to wait_ms for a client supporting method, sends
--- the request to every such client and replies with their answers as
--- JSON: { id, results = "[{client, result}]" } or { id, error }.
function M.request(id, path, method, line, col, wait_ms)
  local buf = vim.fn.bufadd(path)
  if not api.nvim_buf_is_loaded(buf) then
    vim.fn.bufload(buf)
    vim.bo[buf].buflisted = true
  end
  local deadline = vim.loop.now() + wait_ms
  local function attempt()
    local cs = supporting(buf, method)
    if #cs == 0 then
      if vim.loop.now() < deadline then
        vim.defer_fn(attempt, 25)
        return
      end
      local names = {}
      for _, c in ipairs(clients(buf)) do
        names[#names + 1] = c.name
      end
      local attached = #names > 0 and ("attached: " .. table.concat(names, ", ")) or "no language server is attached"
      reply(id, { error = string.format("no language server for %s supports %s (%s)", path, method, attached) })
      return
    end
    local results, waiting = {}, #cs
    for _, c in ipairs(cs) do
      local params = {
        textDocument = { uri = vim.uri_from_bufnr(buf) },
        position = position(buf, line, col, c),
      }
      if method == "textDocument/references" then
        params.context = { includeDeclaration = true }
      end
      local ok = send(c, method, params, function(err, result)
        results[#results + 1] = { client = c.name, result = result, error = err and err.message or nil }
        waiting = waiting - 1
        if waiting == 0 then
          reply(id, { results = vim.json.encode(results) })
        end
      end, buf)
      if not ok then
        waiting = waiting - 1
        results[#results + 1] = { client = c.name, error = "the request could not be sent" }
        if waiting == 0 then
          reply(id, { results = vim.json.encode(results) })
        end
      end
    end
  end
  attempt()
end

-- The version of buf's text the servers are (or are about to be) told
-- about: the LSP client's own count where it keeps one (it can differ
-- from changedtick, e.g. after a reload from disk), else changedtick.
local function doc_version(buf)
  local versions = vim.lsp.util and vim.lsp.util.buf_versions
  -- rawget: on 0.12 the table answers 0 for buffers it does not track.
  local v = versions and rawget(versions, buf)
  if type(v) == "number" then
    return v
  end
  return api.nvim_buf_get_changedtick(buf)
end

-- What each client last published for each buffer: reported[buf][client_id]
-- = the document version the publish was for (the changedtick when the
-- server sent none). A client's namespace holding diagnostics from before
-- tracking started counts as a report for the current version.
local reported = {}
-- Clients seen publishing anything at all (a server that never publishes,
-- a formatter say, must not make every call wait for the whole bound).
local publishes = {}
local first_seen = {}
-- Clients that send document versions, and how many unversioned publishes
-- on changed text the others made (see note() in M.track).
local versioned = {}
local unversioned = {}

--- Wraps the publishDiagnostics handler once, to learn which clients have
--- reported for which version of each buffer. Called when the host starts
--- and on LspAttach (0.8+), never from setup().
function M.track()
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
    return -- tried again at the next LspAttach or host start
  end
  M.tracking = true
  local method = "textDocument/publishDiagnostics"
  local original = vim.lsp.handlers[method]
  local function note(result, ctx)
    local buf = vim.uri_to_bufnr(result.uri)
    local id = ctx.client_id
    reported[buf] = reported[buf] or {}
    local version = result.version
    if version ~= nil then
      versioned[id] = true
    elseif doc_version(buf) == 0 or versioned[id] then
      -- Servers such as gopls omit version 0 (the text as opened); a
      -- late one may arrive after the first change.
      version = 0
    else
      -- A server that never sends versions is recognised after a few
      -- unversioned publishes on changed text, and then trusted to
      -- report on the text current when its publish arrives.
      unversioned[id] = (unversioned[id] or 0) + 1
      version = unversioned[id] >= 3 and doc_version(buf) or 0
    end
    reported[buf][id] = version
    publishes[id] = true
  end
  vim.lsp.handlers[method] = function(err, result, ctx, config)
    if result and result.uri and ctx and ctx.client_id then
      -- Our bookkeeping must never stop the user's diagnostics.
      pcall(note, result, ctx)
    end
    return original(err, result, ctx, config)
  end
end

-- The clients of buf that have not reported for its current version.
local function pending_clients(buf, now, wait_ms)
  local out = {}
  local tick = doc_version(buf)
  for _, c in ipairs(clients(buf)) do
    first_seen[c.id] = first_seen[c.id] or now
    local version = (reported[buf] or {})[c.id]
    if version == nil and vim.lsp.diagnostic.get_namespace then
      local ns = vim.lsp.diagnostic.get_namespace(c.id)
      if #vim.diagnostic.get(buf, { namespace = ns }) > 0 then
        -- Reported before tracking started: credit the current version
        -- once, and remember it, so a later change is waited for.
        version = tick
        reported[buf] = reported[buf] or {}
        reported[buf][c.id] = tick
      end
    end
    local silent = not publishes[c.id] and now - first_seen[c.id] > wait_ms
    if not silent and (version == nil or version < tick) then
      out[#out + 1] = c.name
    end
  end
  return out
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

--- Diagnostics of one file (path, loaded into a buffer when it is not, so
--- its servers attach) or of every buffer (path == ""). Waits up to
--- wait_ms until every attached client has reported for each buffer's
--- current version (and up to attach_ms for a server to attach to a
--- file that has none), then replies with JSON { items = [{path, line, col,
--- severity, message, source}] (0-based), pending = ["client (path)"],
--- unattached = [path] } (unattached: the file had no server at all).
function M.diagnostics(id, path, wait_ms, attach_ms)
  M.track()
  local bufs = {}
  if path ~= "" then
    local buf = vim.fn.bufadd(path)
    if not api.nvim_buf_is_loaded(buf) then
      vim.fn.bufload(buf)
      vim.bo[buf].buflisted = true
    end
    bufs = { buf }
  else
    for _, buf in ipairs(api.nvim_list_bufs()) do
      if api.nvim_buf_is_loaded(buf) then
        bufs[#bufs + 1] = buf
      end
    end
  end
  local start = vim.loop.now()
  local deadline = start + wait_ms
  local function attempt()
    local now = vim.loop.now()
    local pending, unattached = {}, {}
    for _, buf in ipairs(bufs) do
      if api.nvim_buf_is_valid(buf) then
        -- One file with no client yet: a server may still be starting
        -- (it appears once initialized), so wait for it as well.
        if path ~= "" and #clients(buf) == 0 then
          unattached[#unattached + 1] = api.nvim_buf_get_name(buf)
        end
        for _, name in ipairs(pending_clients(buf, now, wait_ms)) do
          pending[#pending + 1] = string.format("%s (%s)", name, api.nvim_buf_get_name(buf))
        end
      end
    end
    local waiting = #pending > 0 or (#unattached > 0 and now < start + attach_ms)
    if waiting and now < deadline then
      vim.defer_fn(attempt, 25)
      return
    end
    local live = vim.tbl_filter(api.nvim_buf_is_valid, bufs)
    reply(id, {
      results = vim.json.encode({ items = diagnostics_of(live), pending = pending, unattached = unattached }),
    })
  end
  attempt()
end

return M
