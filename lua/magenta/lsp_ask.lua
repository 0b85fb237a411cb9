-- The LSP adapter's symbol and editing requests (pkg/lsp/ask.go): document
-- and workspace symbols, rename, formatting. Like lsp.lua's requests they
-- are asynchronous and answer with an "lsp_result" event, here as JSON
-- { answers = [{client, id, encoding, result, error, exited}], stale }.
-- Nothing here changes a file: a rename or formatting answer is the
-- server's proposed edit, which the host applies through its own file
-- access (permissions, buffers, one undo step per file).
local M = {}

local api = vim.api
local lsp = require("magenta.lsp")

local function answer_with(id, answers, stale)
  lsp._reply(id, { results = vim.json.encode({ answers = answers, stale = stale }) })
end

-- Whether the text at the 0-based line and byte column still starts with
-- symbol: the host found it there in the text it read, and a position
-- the file moved away from must not be asked about (a rename there would
-- rename something else).
local function still_there(buf, line, col, symbol)
  local text = api.nvim_buf_get_lines(buf, line, line + 1, false)[1]
  return text ~= nil and text:sub(col + 1, col + #symbol) == symbol
end

local function text_document(buf)
  return { textDocument = { uri = vim.uri_from_bufnr(buf) } }
end

-- The client's requests for one spec (see M.ask).
local per_method = {}

per_method["textDocument/documentSymbol"] = function(c, buf, _, answer, done)
  lsp._exchange(c, buf, "textDocument/documentSymbol", text_document(buf), answer, done)
end

per_method["textDocument/formatting"] = function(c, buf, _, answer, done)
  local sw = vim.bo[buf].shiftwidth
  local params = text_document(buf)
  params.options = { tabSize = sw > 0 and sw or vim.bo[buf].tabstop, insertSpaces = vim.bo[buf].expandtab }
  lsp._exchange(c, buf, "textDocument/formatting", params, answer, done)
end

-- prepareRename first when the server offers it: it refuses a position
-- that holds nothing renameable with its own words, before any edit is
-- computed.
per_method["textDocument/rename"] = function(c, buf, spec, answer, done)
  local at = text_document(buf)
  at.position = lsp._position(buf, spec.line, spec.col, c)
  local function rename()
    local params = vim.deepcopy(at)
    params.newName = spec.new_name
    lsp._exchange(c, buf, "textDocument/rename", params, answer, done)
  end
  local provider = (c.server_capabilities or {}).renameProvider
  if type(provider) ~= "table" or not provider.prepareProvider then
    return rename()
  end
  local ok = lsp._send(c, "textDocument/prepareRename", at, function(err, result)
    if err then
      answer.error = err.message
      return done(answer)
    end
    if result == nil or result == vim.NIL then
      answer.error = "there is nothing to rename at that position"
      return done(answer)
    end
    rename()
  end, buf)
  if not ok then
    answer.error = "the request could not be sent"
    done(answer)
  end
end

-- The diagnostics client c reported on the 0-based lines first..last of
-- buf, as the server sent them (Neovim keeps them in user_data.lsp, 0.7
-- through 0.12): a server offers its quick fixes for the diagnostics in
-- the request's context.
local function range_diagnostics(c, buf, first, last)
  local mine = {}
  local from_lsp = vim.lsp.diagnostic
  if from_lsp and from_lsp.get_namespace then
    for _, pull in ipairs({ false, true }) do
      local ok, ns = pcall(from_lsp.get_namespace, c.id, pull)
      if ok and ns then
        mine[ns] = true
      end
    end
  end
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local stop = d.end_lnum or d.lnum
    local original = type(d.user_data) == "table" and d.user_data.lsp or nil
    if d.lnum <= last and stop >= first and (mine[d.namespace] or next(mine) == nil) and original then
      out[#out + 1] = original
    end
  end
  return out
end

per_method["textDocument/codeAction"] = function(c, buf, spec, answer, done)
  local params = text_document(buf)
  local last = api.nvim_buf_get_lines(buf, spec.end_line, spec.end_line + 1, false)[1] or ""
  params.range = { start = lsp._position(buf, spec.line, 0, c), ["end"] = lsp._position(buf, spec.end_line, #last, c) }
  params.context = { diagnostics = range_diagnostics(c, buf, spec.line, spec.end_line) }
  local caps = c.server_capabilities or {}
  answer.resolvable = type(caps.codeActionProvider) == "table" and caps.codeActionProvider.resolveProvider == true
  answer.commands = type(caps.executeCommandProvider) == "table" and caps.executeCommandProvider.commands or {}
  lsp._exchange(c, buf, "textDocument/codeAction", params, answer, done)
end

-- The running clients supporting method, whatever buffers they serve.
local function running(method)
  local out = {}
  if not package.loaded["vim.lsp"] then
    return out
  end
  local all = vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
  for _, c in ipairs(all) do
    if (c.server_capabilities or {})[lsp._capability[method]] then
      out[#out + 1] = c
    end
  end
  return out
end

-- workspace/symbol has no file to load: it goes to the running servers
-- that support it, and starts none.
local function workspace_symbols(id, spec)
  local cs = running("workspace/symbol")
  if #cs == 0 then
    lsp._reply(id, { error = "no running language server supports workspace/symbol" })
    return
  end
  lsp._gather(cs, function(c, answer, done)
    lsp._exchange(c, nil, "workspace/symbol", { query = spec.query }, answer, done)
  end, function(answers)
    answer_with(id, answers)
  end)
end

--- spec: { method, path, wait_ms, and per method: line, col, symbol
--- (a position: it must still hold symbol), new_name, query }. Loads the
--- file as lsp.request does, waits for a supporting client, and answers
--- every such client's reply.
function M.ask(id, spec)
  if spec.method == "workspace/symbol" then
    return workspace_symbols(id, spec)
  end
  local make = per_method[spec.method]
  if not make then
    lsp._reply(id, { error = "unknown request " .. tostring(spec.method) })
    return
  end
  local buf = lsp._load_file(spec.path)
  lsp._await_clients(buf, spec.path, spec.method, spec.wait_ms, function(cs)
    if spec.symbol and not still_there(buf, spec.line, spec.col, spec.symbol) then
      return answer_with(id, {}, string.format("%s is no longer at line %d, column %d of %s: the file changed", spec.symbol, spec.line + 1, spec.col + 1, spec.path))
    end
    lsp._gather(cs, function(c, answer, done)
      make(c, buf, spec, answer, done)
    end, function(answers)
      answer_with(id, answers)
    end)
  end, function(message)
    lsp._reply(id, { error = message })
  end)
end

-- Sends method with params to the client of id client_id alone and
-- answers as ask does; after(answer) may add to the answer.
local function ask_client(id, client_id, method, params, after)
  local c = package.loaded["vim.lsp"] and vim.lsp.get_client_by_id(client_id)
  if not c then
    lsp._reply(id, { error = "the language server that offered the action has stopped" })
    return
  end
  lsp._gather({ c }, function(_, answer, done)
    lsp._exchange(c, nil, method, params, answer, done)
  end, function(answers)
    if after then
      after(answers[1])
    end
    answer_with(id, answers)
  end)
end

--- codeAction/resolve of one action (JSON, as the server sent it).
function M.resolve_action(id, client_id, action)
  ask_client(id, client_id, "codeAction/resolve", vim.json.decode(action))
end

--- Runs a code action's command (JSON) with workspace/executeCommand.
--- The server may send workspace/applyEdit back while it runs, which
--- Neovim's own handler applies to buffers: the answer's modified lists
--- the files of the buffers that changed meanwhile.
function M.run_command(id, client_id, command)
  local cmd = vim.json.decode(command)
  local ticks = {}
  for _, buf in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(buf) then
      ticks[buf] = api.nvim_buf_get_changedtick(buf)
    end
  end
  ask_client(id, client_id, "workspace/executeCommand", { command = cmd.command, arguments = cmd.arguments }, function(answer)
    local modified = {}
    for _, buf in ipairs(api.nvim_list_bufs()) do
      if api.nvim_buf_is_loaded(buf) and ticks[buf] ~= api.nvim_buf_get_changedtick(buf) then
        modified[#modified + 1] = api.nvim_buf_get_name(buf)
      end
    end
    answer.result, answer.modified = nil, modified
  end)
end

--- The methods running servers support, and whether a server configured
--- for the workspace's files has not started yet (its capabilities are
--- unknown until it does), as JSON { methods, unstarted }. no_server:
--- lsp.lua's file types that got no server.
function M.supported(no_server)
  local methods, skip = {}, {}
  for ft in pairs(no_server) do
    skip[ft] = true
  end
  if package.loaded["vim.lsp"] then
    for method in pairs(lsp._capability) do
      if #running(method) > 0 then
        methods[#methods + 1] = method
      end
    end
    -- A type whose buffers have a server is served: its configured
    -- server, if any, is that one (or runs beside it).
    for _, buf in ipairs(api.nvim_list_bufs()) do
      if api.nvim_buf_is_loaded(buf) and #lsp._clients(buf) > 0 then
        skip[vim.bo[buf].filetype] = true
      end
    end
  end
  local unstarted = require("magenta.lsp_configured").available(skip)
  return vim.json.encode({ methods = methods, unstarted = unstarted })
end

--- Tells the running servers that paths changed on disk. A file no buffer
--- holds is not synchronised by Neovim (only open buffers are), and a
--- server that does not watch the disk would keep answering from the old
--- text after a rename or formatting wrote it.
function M.files_changed(paths)
  if not package.loaded["vim.lsp"] then
    return
  end
  local loaded = {}
  for _, buf in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(buf) then
      loaded[api.nvim_buf_get_name(buf)] = true
    end
  end
  local changes = {}
  for _, path in ipairs(paths) do
    if not loaded[path] then
      changes[#changes + 1] = { uri = vim.uri_from_fname(path), type = 2 } -- Changed
    end
  end
  if #changes == 0 then
    return
  end
  local all = vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
  for _, c in ipairs(all) do
    local params = { changes = changes }
    if vim.fn.has("nvim-0.11") == 1 then
      c:notify("workspace/didChangeWatchedFiles", params)
    else
      c.notify("workspace/didChangeWatchedFiles", params)
    end
  end
end

return M
