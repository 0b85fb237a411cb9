-- The LSP adapter's Neovim half: asks the language servers the user's own
-- configuration attaches. magenta configures no server of its own: a
-- server the user configured starts when a tool loads a file of its type,
-- as it would when the user opened the file. Requests are asynchronous:
-- request() returns at once and the answer comes back to the host as an
-- "lsp_result" event. Called over RPC by pkg/lsp.
local protocol = require("magenta.protocol")
local M = {}

local api = vim.api

local capability = {
  ["textDocument/hover"] = "hoverProvider",
  ["textDocument/references"] = "referencesProvider",
  ["textDocument/definition"] = "definitionProvider",
  ["textDocument/typeDefinition"] = "typeDefinitionProvider",
  ["textDocument/documentSymbol"] = "documentSymbolProvider",
  ["workspace/symbol"] = "workspaceSymbolProvider",
  ["textDocument/rename"] = "renameProvider",
  ["textDocument/formatting"] = "documentFormattingProvider",
  ["textDocument/codeAction"] = "codeActionProvider",
}

-- The initialized clients attached to buf.
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

-- The clients attached to buf that are still starting (they send the
-- buffer to their server once initialized).
local function starting(buf)
  local out = {}
  if vim.lsp.get_clients then -- 0.10+
    for _, c in ipairs(vim.lsp.get_clients({ bufnr = buf, _uninitialized = true })) do
      if not c.initialized then
        out[#out + 1] = c
      end
    end
    return out
  end
  -- 0.7–0.9 list only initialized clients, but a starting one is found
  -- by its id (ids count up from 1) through get_client_by_id.
  local active, top = {}, 0
  for _, c in ipairs(vim.lsp.get_active_clients()) do
    active[c.id] = true
    top = math.max(top, c.id)
  end
  for id = 1, top + 8 do
    if not active[id] and vim.lsp.buf_is_attached(buf, id) then
      out[#out + 1] = vim.lsp.get_client_by_id(id)
    end
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
  require("magenta.host").notify_if_running(protocol.events.lsp_result, payload)
end

--- Whether any language server runs. Never loads vim.lsp: when nothing
--- loaded it, no server runs.
function M.running()
  if not package.loaded["vim.lsp"] then
    return false
  end
  local all = vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
  return #all > 0
end

-- File types a loaded file of which got no server within the wait: the
-- configuration looked like it starts one for them (lsp_configured.lua)
-- but does not, so they stop counting.
local no_server = {}

-- Loads path into a hidden buffer, as lsp.lua always has: bufadd+bufload
-- touch no window, jump list or alternate file. Loading runs the user's
-- autocommands (FileType), which attach — and start — their servers.
local function load_file(path)
  local buf = vim.fn.bufadd(path)
  if not api.nvim_buf_is_loaded(buf) then
    vim.fn.bufload(buf)
    vim.bo[buf].buflisted = true
  end
  return buf
end

-- Remembers that buf's file type got no server (nothing attached, nothing
-- starting) when a wait for one ended.
local function note_no_server(buf)
  local ft = vim.bo[buf].filetype
  if ft ~= "" and #clients(buf) == 0 and #starting(buf) == 0 then
    no_server[ft] = true
  end
end

-- A request whose server exits before answering is never answered
-- (Neovim drops its callbacks, 0.7 through 0.12): gather watches the
-- clients it waits for every WATCH_MS, at most WATCH_FOR_MS (the host
-- gave up long before).
local WATCH_MS, WATCH_FOR_MS = 100, 60000

-- Whether client c has exited or is stopping.
local function gone(c)
  if vim.lsp.get_client_by_id(c.id) == nil then
    return true
  end
  local ok, stopped = pcall(function()
    if vim.fn.has("nvim-0.11") == 1 then
      return c:is_stopped()
    end
    return c.is_stopped()
  end)
  return ok and stopped
end

-- Runs per_client(c, answer, done) for every client in cs and calls
-- finish(answers) once each has called done(answer) exactly once — or
-- exited, which answers for it with an error.
local function gather(cs, per_client, finish)
  local answers, pending, waiting = {}, {}, #cs
  local function done(answer)
    if not pending[answer.id] then
      return -- answered already (the watchdog was first)
    end
    pending[answer.id] = nil
    answers[#answers + 1] = answer
    waiting = waiting - 1
    if waiting == 0 then
      finish(answers)
    end
  end
  for _, c in ipairs(cs) do
    pending[c.id] = c
  end
  for _, c in ipairs(cs) do
    local answer = { client = c.name, id = c.id, encoding = c.offset_encoding or "utf-16" }
    local ok, err = pcall(per_client, c, answer, done)
    if not ok then -- a failure here must not leave the host waiting
      answer.error = "magenta: " .. tostring(err)
      done(answer)
    end
  end
  local stop_at = vim.loop.now() + WATCH_FOR_MS
  local function watch()
    if waiting == 0 or vim.loop.now() > stop_at then
      return
    end
    for _, c in pairs(pending) do
      if gone(c) then
        done({ client = c.name, id = c.id, exited = true, error = "the language server " .. c.name .. " exited before it answered" })
      end
    end
    vim.defer_fn(watch, WATCH_MS)
  end
  vim.defer_fn(watch, WATCH_MS)
end

-- Sends one request to c and answers with its result or error.
local function exchange(c, buf, method, params, answer, done)
  local ok = send(c, method, params, function(err, result)
    answer.result, answer.error = result, err and err.message or nil
    done(answer)
  end, buf)
  if not ok then
    answer.error = "the request could not be sent"
    done(answer)
  end
end

-- Waits up to wait_ms for clients of buf supporting method, then calls
-- ready(clients), or fail(message) when none came. While another client
-- of buf is still starting it waits for that one too (within the bound):
-- with several servers on one file, the fastest must not answer alone.
local function await_clients(buf, path, method, wait_ms, ready, fail)
  local deadline = vim.loop.now() + wait_ms
  local function attempt()
    local cs = supporting(buf, method)
    if #cs > 0 and (#starting(buf) == 0 or vim.loop.now() >= deadline) then
      return ready(cs)
    end
    if vim.loop.now() < deadline then
      vim.defer_fn(attempt, 25)
      return
    end
    note_no_server(buf)
    local names = {}
    for _, c in ipairs(clients(buf)) do
      names[#names + 1] = c.name
    end
    local attached = #names > 0 and ("attached: " .. table.concat(names, ", ")) or "no language server is attached"
    fail(string.format("no language server for %s supports %s (%s)", path, method, attached))
  end
  attempt()
end

--- Loads path into a buffer (so the user's configuration attaches, or
--- starts, its servers), waits up to wait_ms for a client supporting
--- method, sends the request to every such client and replies with their
--- answers as JSON: { id, results = "[{client, result}]" } or { id, error }.
function M.request(id, path, method, line, col, wait_ms)
  local buf = load_file(path)
  await_clients(buf, path, method, wait_ms, function(cs)
    gather(cs, function(c, answer, done)
      local params = {
        textDocument = { uri = vim.uri_from_bufnr(buf) },
        position = position(buf, line, col, c),
      }
      if method == "textDocument/references" then
        params.context = { includeDeclaration = true }
      end
      exchange(c, buf, method, params, answer, done)
    end, function(answers)
      reply(id, { results = vim.json.encode(answers) })
    end)
  end, function(message)
    reply(id, { error = message })
  end)
end

--- The symbol and editing requests (lsp_ask.lua).
function M.ask(id, spec)
  return require("magenta.lsp_ask").ask(id, spec)
end

--- What the running servers support, and whether a configured one is
--- still to start (lsp_ask.lua), as JSON.
function M.supported()
  return require("magenta.lsp_ask").supported(no_server)
end

--- Diagnostics of one file or of every buffer (lsp_reports.lua).
function M.diagnostics(...)
  return require("magenta.lsp_reports").diagnostics(...)
end

--- Starts following the servers' diagnostics reports (lsp_reports.lua).
function M.track(attaching)
  return require("magenta.lsp_reports").track(attaching)
end

--- Whether the LSP tools can answer: a server runs, or the user's
--- configuration starts one for the workspace's files (lsp_configured.lua).
function M.available()
  return M.running() or require("magenta.lsp_configured").available(no_server)
end

-- For lsp_reports.lua and lsp_configured.lua only.
M._clients, M._starting, M._load_file, M._note_no_server, M._reply = clients, starting, load_file, note_no_server, reply
-- For lsp_ask.lua only.
M._capability, M._send, M._position, M._gather, M._exchange, M._await_clients =
  capability, send, position, gather, exchange, await_clients

return M
