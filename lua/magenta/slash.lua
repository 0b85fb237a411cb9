-- /commands in the input buffer: prompt files (.claude/commands/*.md,
-- .magenta/commands/, ~/.claude/commands/, ~/.config/magenta/commands/)
-- completed by the input's omnifunc next to the @-mentions (mentions.lua)
-- from the host's list; the host expands "/name args" typed at the start
-- of a message when it is sent (pkg/chat/slash.go). Works on Neovim 0.7.
local protocol = require("magenta.protocol")
local M = {}

-- TIMEOUT_MS bounds the host's answer (its first answer lists the
-- command directories).
M.TIMEOUT_MS = 2000
-- CACHE_MS: one list serves the keys typed while completing.
M.CACHE_MS = 2000

local cache = { at = 0, items = nil }

--- The commands the host knows: a list of { name, description, hint,
--- namespace, scope, path }; empty when the host does not answer.
function M.commands()
  local now = vim.loop.now()
  if cache.items and now - cache.at < M.CACHE_MS then
    return cache.items
  end
  local res = require("magenta.host").request(protocol.requests.slash_commands, nil, M.TIMEOUT_MS)
  local items = {}
  if type(res) == "table" then
    for _, c in ipairs(res) do
      if type(c) == "table" and type(c.name) == "string" then
        items[#items + 1] = c
      end
    end
  end
  cache = { at = now, items = items }
  return items
end

--- Where a /command being typed starts (0-based), or nil: only on the
--- input's first line, from its first column, while the cursor is in
--- the name.
function M.findstart(row, before_cursor)
  if row == 1 and before_cursor:match("^/[%w_.%-]*$") then
    return 0
  end
  return nil
end

local function text(v)
  return type(v) == "string" and v or ""
end

--- The completion items for base ("/re").
function M.complete(base)
  local prefix = base:sub(2)
  local items = {}
  for _, c in ipairs(M.commands()) do
    if c.name:sub(1, #prefix) == prefix then
      local where = c.scope == "workspace" and "project" or "user"
      if text(c.namespace) ~= "" then
        where = where .. ":" .. c.namespace
      end
      local hint = text(c.hint)
      items[#items + 1] = {
        word = "/" .. c.name,
        abbr = "/" .. c.name .. (hint ~= "" and (" " .. hint) or ""),
        menu = "(" .. where .. ") " .. text(c.description),
        info = text(c.path),
      }
    end
  end
  return items
end

return M
