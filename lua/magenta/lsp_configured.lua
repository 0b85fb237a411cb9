-- Whether the user's configuration would start a language server for the
-- workspace's files when none runs yet. Configurations start servers
-- lazily (lspconfig and vim.lsp.enable() on FileType), so none runs until
-- a file of their type is opened — yet the LSP tools must be offered from
-- the first request, or a model never tries them. A tool call then loads
-- the file into a hidden buffer, which starts the server as opening the
-- file would.
--
-- A file type counts as served when
--   * vim.lsp.enable() enabled a config listing it (0.11+; a config
--     without filetypes serves every type);
--   * nvim-lspconfig's setup{} set up a server listing it;
--   * a FileType autocommand for that very type (no pattern) looks like
--     it starts one: its group or description mentions LSP, or its
--     command, or the source of its Lua callback (0.8+: 0.7 does not show
--     callbacks, so there any Lua callback counts; a callback whose source
--     cannot be read counts too);
-- unless a tool loaded a file of that type and no server attached
-- (lsp.lua's no_server). And the workspace must hold a file of a served
-- type: 0.8+ walks the working directory breadth-first (at most
-- SCAN_ENTRIES entries, hidden directories and node_modules skipped) and
-- names each new extension's type with vim.filetype.match (by name and
-- first lines; 0.10 cannot tell a few types, *.txt among them, without a
-- buffer), keeping the answer for SCAN_KEEP_MS: ~5 ms for 2000 entries.
-- 0.7's filetype.match sets a buffer's 'filetype' (running its FileType
-- autocommands — starting servers), so 0.7 does not look at the
-- workspace.
local M = {}

local api = vim.api
local uv = vim.loop

local SCAN_ENTRIES = 2000
local SCAN_KEEP_MS = 30000

-- Whether fn's source mentions LSP, by function (weak keys).
local mentions = setmetatable({}, { __mode = "k" })

local function source_mentions_lsp(fn)
  if mentions[fn] ~= nil then
    return mentions[fn]
  end
  local answer = true -- unreadable: it may start one
  local info = debug.getinfo(fn, "S")
  if info and info.what == "Lua" and info.source and info.linedefined > 0 then
    local src, lines = info.source, nil
    if src:sub(1, 1) == "@" then
      local ok, read = pcall(vim.fn.readfile, src:sub(2), "", info.lastlinedefined)
      lines = ok and read or nil
    elseif src:sub(1, 1) ~= "=" then
      lines = vim.split(src, "\n", { plain = true }) -- the chunk's own text
    end
    if lines and #lines >= info.linedefined then
      local text = table.concat(lines, "\n", info.linedefined, math.min(#lines, info.lastlinedefined))
      answer = text:lower():find("lsp", 1, true) ~= nil
    end
  end
  mentions[fn] = answer
  return answer
end

-- Whether a FileType autocommand looks like it starts a language server.
local function starts_a_server(ac)
  local group = ac.group_name or ""
  if group:find("^magenta") then
    return false
  end
  if (group .. " " .. (ac.desc or "")):lower():find("lsp", 1, true) then
    return true
  end
  if type(ac.callback) == "function" then
    return source_mentions_lsp(ac.callback)
  end
  local cmd = type(ac.callback) == "string" and ac.callback or ac.command or ""
  if cmd:match("^<lua: %d+>$") then
    return true -- 0.7 shows a Lua callback only as this
  end
  return cmd:lower():find("lsp", 1, true) ~= nil
end

-- The file types a configured server would start for, and whether one
-- starts for every type.
local function configured_filetypes()
  local fts, any = {}, false
  local function add(list)
    if type(list) ~= "table" then
      any = true
      return
    end
    for _, ft in ipairs(list) do
      fts[ft] = true
    end
  end
  -- vim.lsp.enable() loads vim.lsp: when it is not loaded, nothing is enabled.
  local vimlsp = package.loaded["vim.lsp"]
  if type(vimlsp) == "table" and vimlsp.enable then
    if vimlsp.get_configs then -- 0.12
      local ok, configs = pcall(vimlsp.get_configs, { enabled = true })
      for _, cfg in ipairs(ok and configs or {}) do
        add(cfg.filetypes)
      end
    elseif type(vimlsp._enabled_configs) == "table" then -- 0.11
      for name in pairs(vimlsp._enabled_configs) do
        local ok, cfg = pcall(function()
          return vimlsp.config[name]
        end)
        if ok and type(cfg) == "table" then
          add(cfg.filetypes)
        end
      end
    end
  end
  local lspconfig = package.loaded["lspconfig.configs"]
  if type(lspconfig) == "table" then
    for _, cfg in pairs(lspconfig) do
      if type(cfg) == "table" and cfg.manager ~= nil then -- set up
        add(cfg.filetypes)
      end
    end
  end
  local ok, autocmds = pcall(api.nvim_get_autocmds, { event = "FileType" })
  for _, ac in ipairs(ok and autocmds or {}) do
    local ft = ac.pattern
    if type(ft) == "string" and ft ~= "" and not ft:find("[%*%?%[{,\\]") and starts_a_server(ac) then
      fts[ft] = true
    end
  end
  return fts, any
end

local scanned = { cwd = nil, at = 0, filetypes = nil }

-- The first lines of a regular file (at most 4 KB): some types are told
-- by content (*.txt is "text" unless a modeline says "help").
local function head(path)
  local stat = uv.fs_stat(path)
  if not stat or stat.type ~= "file" then
    return nil -- FIFOs and devices are not opened
  end
  local fd = uv.fs_open(path, "r", 0)
  if not fd then
    return nil
  end
  local data = uv.fs_read(fd, 4096, 0)
  uv.fs_close(fd)
  return data and vim.split(data, "\n", { plain = true }) or nil
end

-- The file types of the workspace's files (see the top), or nil on 0.7.
local function workspace_filetypes()
  if vim.fn.has("nvim-0.8") == 0 then
    return nil
  end
  local cwd, now = vim.fn.getcwd(), uv.now()
  if scanned.cwd == cwd and now - scanned.at < SCAN_KEEP_MS then
    return scanned.filetypes
  end
  local fts, seen, dirs, entries, i = {}, {}, { cwd }, 0, 0
  while i < #dirs and entries < SCAN_ENTRIES do
    i = i + 1
    local handle = uv.fs_scandir(dirs[i])
    while handle and entries < SCAN_ENTRIES do
      local name, kind = uv.fs_scandir_next(handle)
      if not name then
        break
      end
      entries = entries + 1
      if name:sub(1, 1) ~= "." and name ~= "node_modules" then
        local path = dirs[i] .. "/" .. name
        if kind == "directory" then
          dirs[#dirs + 1] = path
        elseif kind == "file" or kind == "link" then
          local key = name:match("%.[^.]+$") or name
          if not seen[key] then
            seen[key] = true
            local matched, ft = pcall(vim.filetype.match, { filename = path, contents = head(path) })
            if matched and ft then
              fts[ft] = true
            end
          end
        end
      end
    end
  end
  scanned = { cwd = cwd, at = now, filetypes = fts }
  return fts
end

--- Whether a configured server would start for a file of the workspace;
--- no_server: the file types that got none when a tool loaded a file.
function M.available(no_server)
  local fts, any = configured_filetypes()
  for ft in pairs(no_server) do
    fts[ft] = nil
  end
  if not any and next(fts) == nil then
    return false
  end
  local present = workspace_filetypes()
  if present == nil then
    return true
  end
  for ft in pairs(present) do
    if (any or fts[ft]) and not no_server[ft] then
      return true
    end
  end
  return false
end

return M
