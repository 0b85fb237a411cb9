-- The sidebar's keys as the user configured them: the key help (? in the
-- sidebar) and the group name which-key shows for the global keys'
-- prefix. Loaded on first use (setup() only schedules the which-key
-- part, and only when which-key is there).
local config = require("magenta.config")

local M = {}

local api = vim.api

local function keymaps(group)
  local km = config.options.keymaps
  local keys = type(km) == "table" and km[group]
  return type(keys) == "table" and keys or {}
end

-- What each configured key does, for the key help (?), in the order
-- shown.
local key_help = {
  { "sidebar", "close", "close the sidebar" },
  { "sidebar", "help", "show these keys" },
  { "input", "send", "send the message (normal mode, input)" },
  { "input", "send_insert", "send the message (insert and normal mode, input)" },
  { "display", "activate", "press the choice / open the item under the cursor" },
  { "display", "toggle", "expand or collapse a tool call, thinking or summary" },
  { "display", "approve", "approve the request under the cursor" },
  { "display", "deny", "deny the request under the cursor" },
  { "display", "always", "always allow the request under the cursor" },
  { "display", "terminate", "stop the command / remove the context file under the cursor" },
  { "display", "terminal", "open the interactive command's terminal under the cursor" },
}

--- The sidebar's keys as configured (disabled ones left out), one line
--- each, then the global keys.
function M.help_lines()
  local lines = { "magenta keys (q, <Esc> or any key closes this)" }
  local rows = {}
  local function row(lhs, what)
    if type(lhs) == "string" and lhs ~= "" then
      rows[#rows + 1] = { lhs, what }
    end
  end
  -- Display keys that may answer an approval: sidebar.lua lets them fall
  -- back to the input only while no approval waits.
  local approval_keys = require("magenta.sidebar").APPROVAL_KEYS
  local insert = keymaps("sidebar").insert
  local approve_in_insert = false
  for _, entry in ipairs(key_help) do
    local lhs = keymaps(entry[1])[entry[2]]
    local what = entry[3]
    if type(insert) == "table" and entry[1] == "display" and approval_keys[entry[2]] and vim.tbl_contains(insert, lhs) then
      what = what .. "; with no approval waiting: go to the input"
      approve_in_insert = true
    end
    row(lhs, what)
  end
  if type(insert) == "table" and #insert > 0 then
    local display = keymaps("display")
    local own = {}
    for _, lhs in ipairs(insert) do
      local taken = false
      for _, d in pairs(display) do
        taken = taken or d == lhs
      end
      if not taken then
        own[#own + 1] = lhs
      end
    end
    if #own > 0 or approve_in_insert then
      row(table.concat(own, " "), "display: go to the input, insert at its end")
    end
  end
  row("<C-x><C-o>", "complete an @-mention (insert mode, input)")
  local ok, magenta = pcall(require, "magenta")
  local km = config.options.keymaps
  if ok and type(km) == "table" and type(km.global) == "table" then
    local names = vim.tbl_keys(km.global)
    table.sort(names)
    for _, name in ipairs(names) do
      local action = magenta.global_actions and magenta.global_actions[name]
      row(km.global[name], action and action[2] or name)
    end
  end
  local width = 0
  for _, r in ipairs(rows) do
    width = math.max(width, vim.fn.strdisplaywidth(r[1]))
  end
  for _, r in ipairs(rows) do
    lines[#lines + 1] = "  " .. r[1] .. string.rep(" ", width - vim.fn.strdisplaywidth(r[1])) .. "  " .. r[2]
  end
  return lines
end

--- Shows the sidebar's keys, as configured, in a float over the current
--- window; the next key closes it (and does nothing else).
function M.help()
  local lines = M.help_lines()
  local width = 0
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  width = math.min(width + 1, math.max(20, vim.o.columns - 4))
  local height = math.min(#lines, math.max(1, vim.o.lines - 4))
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = "wipe"
  local win = api.nvim_open_win(buf, false, {
    relative = "editor",
    row = math.max(0, math.floor((vim.o.lines - height) / 2) - 1),
    col = math.max(0, math.floor((vim.o.columns - width) / 2)),
    width = width,
    height = height,
    style = "minimal",
    border = "rounded",
    zindex = 200,
  })
  api.nvim_buf_set_var(buf, "magenta_role", "help")
  vim.cmd("redraw")
  -- One key closes it; it is taken, not passed on: a q that closes the
  -- help must not close the sidebar too.
  pcall(vim.fn.getchar)
  if api.nvim_win_is_valid(win) then
    api.nvim_win_close(win, true)
  end
end

-- The keys of lhs: <…> names (case-insensitive) and single characters.
local function key_units(lhs)
  local units = {}
  local i = 1
  while i <= #lhs do
    local name = lhs:match("^<[^<>]+>", i)
    if name then
      units[#units + 1] = name:lower()
      i = i + #name
    else
      units[#units + 1] = lhs:sub(i, i)
      i = i + 1
    end
  end
  return units
end

-- Whether the key (one unit, lowercased) is a leader every plugin's keys
-- share: a group named for it alone would rename the whole leader menu.
local function is_leader(unit)
  local leaders = { ["<leader>"] = true, ["<localleader>"] = true, ["<space>"] = true, [" "] = true, ["\\"] = true }
  for _, g in ipairs({ vim.g.mapleader, vim.g.maplocalleader }) do
    if type(g) == "string" and g ~= "" then
      leaders[g:lower()] = true
    end
  end
  return leaders[unit] == true
end

--- The prefix the configured keys (a list of lhs strings) share, as it
--- is written in the first of them; nil when they share none of their
--- own: fewer than two keys, no common key, or only a leader (which every
--- plugin's keys share).
function M.shared_prefix(keys)
  if #keys < 2 then
    return nil
  end
  local first = key_units(keys[1])
  local n = #first
  for i = 2, #keys do
    local units = key_units(keys[i])
    local same = 0
    while same < n and same < #units and units[same + 1] == first[same + 1] do
      same = same + 1
    end
    -- A prefix is shorter than every key: a key that is the whole
    -- prefix would be a key, not a group.
    n = math.min(same, #units - 1, #first - 1)
  end
  if n < 1 or (n == 1 and is_leader(first[1])) then
    return nil
  end
  local out, units = {}, key_units(keys[1])
  local pos = 1
  for i = 1, n do
    local len = #units[i]
    out[i] = keys[1]:sub(pos, pos + len - 1)
    pos = pos + len
  end
  return table.concat(out)
end

local function enabled_keys(group)
  local keys = {}
  for _, lhs in pairs(type(group) == "table" and group or {}) do
    if type(lhs) == "string" and lhs ~= "" then
      keys[#keys + 1] = lhs
    end
  end
  table.sort(keys)
  return keys
end

--- Names the global keys' shared prefix "magenta" in which-key (v3's
--- add, else v2's register), in visual mode too when the visual keys
--- share it. Nothing when the keys share no prefix of their own.
function M.register_which_key(wk)
  local km = config.options.keymaps or {}
  local prefix = M.shared_prefix(enabled_keys(km.global))
  if not prefix then
    return nil
  end
  local modes = { "n" }
  local visual = enabled_keys(km.visual)
  if #visual > 0 then
    local want = key_units(prefix)
    local all = true
    for _, lhs in ipairs(visual) do
      local units = key_units(lhs)
      all = all and #units > #want and table.concat(units, "", 1, #want) == table.concat(want)
    end
    if all then
      modes[2] = "x"
    end
  end
  if type(wk.add) == "function" then
    pcall(wk.add, { { prefix, group = "magenta", mode = modes } })
  elseif type(wk.register) == "function" then
    for _, mode in ipairs(modes) do
      pcall(wk.register, { [prefix] = { name = "+magenta" } }, { mode = mode })
    end
  end
  return prefix
end

return M
