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

--- Diagnostics of one file (path) or of every buffer (path == ""), as
--- JSON: [{path, line, col, severity, message, source}] (0-based).
function M.diagnostics(path)
  local bufs = {}
  if path ~= "" then
    local buf = vim.fn.bufnr(path)
    if buf <= 0 then
      return "[]"
    end
    bufs = { buf }
  else
    bufs = api.nvim_list_bufs()
  end
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
  return vim.json.encode(out)
end

return M
