-- @-mentions in the input buffer: parsed and expanded when a message is
-- sent (Lua knows the buffers, diagnostics and the quickfix list), and
-- completed by the input buffer's omnifunc. @file and @buf become context
-- files; the others go with the message as attachments the chat lists.
local protocol = require("magenta.protocol")
local M = {}

local api = vim.api

-- GIT_TIMEOUT_MS bounds @diff/@staged: sending waits for git (the host
-- runs it).
M.GIT_TIMEOUT_MS = 5000
-- FILES_TIMEOUT_MS and FILES_MAX bound the file list completion reads.
M.FILES_TIMEOUT_MS = 2000
M.FILES_MAX = 20000
-- COMPLETIONS_MAX caps the items one completion offers.
M.COMPLETIONS_MAX = 200

M.names = {
  { word = "@file:", menu = "attach a file (context file)" },
  { word = "@image:", menu = "attach an image (PNG, JPEG, GIF, WebP)" },
  { word = "@buf", menu = "attach every loaded file buffer" },
  { word = "@diag", menu = "the current diagnostics" },
  { word = "@qf", menu = "the quickfix list" },
  { word = "@diff", menu = "git diff of the working tree (@diff:<path>)" },
  { word = "@staged", menu = "git diff --staged (@staged:<path>)" },
}

local known = { file = true, image = true, buf = true, diag = true, qf = true, diff = true, staged = true }

--- Finds the mentions in text: a list of { name, arg } for known names.
--- A mention starts a word; its argument follows a colon, in double
--- quotes when it holds spaces (@file:"my file.txt").
function M.parse(text)
  local found = {}
  local pos = 1
  while true do
    local at, name_end, name = text:find("@(%a+)", pos)
    if not at then
      break
    end
    pos = name_end + 1
    local before = at > 1 and text:sub(at - 1, at - 1) or ""
    if (before == "" or before:match("[%s%(%[]")) and known[name] then
      local arg
      if text:sub(pos, pos) == ":" then
        if text:sub(pos + 1, pos + 1) == '"' then
          local close = text:find('"', pos + 2, true)
          if close then
            arg = text:sub(pos + 2, close - 1)
            pos = close + 1
          end
        else
          local word = text:match("^%S+", pos + 1)
          if word then
            arg = word
            pos = pos + 1 + #word
          end
        end
      end
      -- A name that wants no argument followed by ":" is left alone.
      if not ((name == "buf" or name == "diag" or name == "qf") and arg) then
        found[#found + 1] = { name = name, arg = arg }
      end
    end
  end
  return found
end

local function abs(path)
  return vim.fn.fnamemodify(vim.fn.expand(path), ":p")
end

-- An unquoted path may end in the sentence's punctuation ("see @file:a.go.").
local function file_path(arg)
  local p = abs(arg)
  if vim.fn.filereadable(p) == 0 then
    local trimmed = arg:gsub("[%.,;:!%?%)]+$", "")
    if trimmed ~= "" and vim.fn.filereadable(abs(trimmed)) == 1 then
      return abs(trimmed)
    end
  end
  return p
end

local function loaded_file_buffers()
  local paths = {}
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(b) and vim.bo[b].buftype == "" then
      local name = api.nvim_buf_get_name(b)
      if name ~= "" then
        paths[#paths + 1] = name
      end
    end
  end
  return paths
end

local severities = { "ERROR", "WARN", "INFO", "HINT" }

local function relative(path)
  return vim.fn.fnamemodify(path, ":.")
end

-- M.CHECK_TIMEOUT_MS bounds the host's check of the files a mention's
-- lines name.
M.CHECK_TIMEOUT_MS = 2000

--- Which of the files (absolute paths) the model may read without
--- asking, by the host's read check (the same as get_file's, with no
--- question): a set of the allowed ones, and the list of the others.
--- Without an answer nothing is allowed: a line about a file is what a
--- server or a tool read in it (a spell checker quotes a key's words).
local function readable(paths)
  local list, allowed, refused = {}, {}, {}
  for path in pairs(paths) do
    list[#list + 1] = path
  end
  table.sort(list)
  if #list == 0 then
    return allowed, refused
  end
  local res = require("magenta.host").request(protocol.requests.check_paths, { paths = list }, M.CHECK_TIMEOUT_MS)
  for i, path in ipairs(list) do
    if type(res) == "table" and type(res.allowed) == "table" and res.allowed[i] == true then
      allowed[path] = true
    else
      refused[#refused + 1] = relative(path)
    end
  end
  return allowed, refused
end

--- The note a mention's text ends with when lines were left out.
local function left_out(refused)
  if #refused == 0 then
    return ""
  end
  return string.format(
    "\n(Left out: what %d file(s) the model may not read without asking hold: %s.)",
    #refused,
    table.concat(refused, ", ")
  )
end

local function diagnostics()
  local lines = {}
  local all = vim.diagnostic.get(nil)
  local paths = {}
  for _, d in ipairs(all) do
    local name = api.nvim_buf_is_valid(d.bufnr) and api.nvim_buf_get_name(d.bufnr) or ""
    if name ~= "" then
      paths[name] = true
    end
  end
  local allowed, refused = readable(paths)
  for _, d in ipairs(all) do
    local name = api.nvim_buf_is_valid(d.bufnr) and api.nvim_buf_get_name(d.bufnr) or ""
    if name == "" or allowed[name] then
      local src = d.source and (" [" .. d.source .. "]") or ""
      lines[#lines + 1] = string.format(
        "%s:%d:%d: %s: %s%s",
        name ~= "" and relative(name) or ("buffer " .. d.bufnr),
        d.lnum + 1,
        d.col + 1,
        severities[d.severity] or "?",
        (d.message or ""):gsub("\n", " "),
        src
      )
    end
  end
  table.sort(lines)
  if #lines == 0 then
    return "@diag (none)", "The user mentioned @diag: there are no diagnostics." .. left_out(refused)
  end
  return string.format("@diag (%d)", #lines), "Diagnostics (@diag):\n" .. table.concat(lines, "\n") .. left_out(refused)
end

local function quickfix()
  local list = vim.fn.getqflist()
  local title = vim.fn.getqflist({ title = 1 }).title or ""
  if title == ":setqflist()" then
    title = "" -- the default title says nothing
  end
  local lines, paths = {}, {}
  for _, item in ipairs(list) do
    local name = (item.bufnr or 0) > 0 and api.nvim_buf_get_name(item.bufnr) or ""
    if name ~= "" then
      paths[name] = true
    end
  end
  local allowed, refused = readable(paths)
  for _, item in ipairs(list) do
    local name = (item.bufnr or 0) > 0 and api.nvim_buf_get_name(item.bufnr) or ""
    if name == "" or allowed[name] then
      local where = name ~= "" and string.format("%s:%d:%d: ", relative(name), item.lnum, item.col) or ""
      lines[#lines + 1] = where .. (item.text or ""):gsub("\n", " ")
    end
  end
  if #lines == 0 then
    return "@qf (empty)", "The user mentioned @qf: the quickfix list is empty." .. left_out(refused)
  end
  local head = "Quickfix list (@qf)" .. (title ~= "" and (" " .. title) or "") .. ":\n"
  return string.format("@qf (%d)", #lines), head .. table.concat(lines, "\n") .. left_out(refused)
end

--- Runs a command with a deadline; returns its stdout lines, or nil and
--- why not. jobwait keeps it working on 0.7 (no vim.system).
function M.run(cmd, timeout_ms)
  local out, err = {}, {}
  local ok, id = pcall(vim.fn.jobstart, cmd, {
    cwd = vim.fn.getcwd(),
    stdout_buffered = true,
    stderr_buffered = true,
    on_stdout = function(_, data)
      out = data
    end,
    on_stderr = function(_, data)
      err = data
    end,
  })
  if not ok or id <= 0 then
    return nil, cmd[1] .. " could not be started"
  end
  local rc = vim.fn.jobwait({ id }, timeout_ms)[1]
  if rc == -1 then
    vim.fn.jobstop(id)
    return nil, string.format("%s took longer than %d ms and was stopped", cmd[1], timeout_ms)
  end
  if out[#out] == "" then
    out[#out] = nil
  end
  if rc ~= 0 then
    -- The first line says why (git's usage text may follow).
    for _, line in ipairs(err) do
      if vim.trim(line) ~= "" then
        return nil, vim.trim(line)
      end
    end
    return nil, string.format("%s exited with %d", cmd[1], rc)
  end
  return out
end

-- The user's own git diff. The host runs it (the "git_diff" request,
-- pkg/host/gitdiff.go) with the shell's hardened git environment,
-- --no-ext-diff --no-textconv and no fsmonitor, and refuses a repository
-- whose config names a program git could run (a filter runs on any
-- `git diff` of work-tree files): it answers { label, text }.
local function git_diff(name, arg)
  local mention = "@" .. name .. (arg and (":" .. arg) or "")
  local res, err = require("magenta.host").request(protocol.requests.git_diff, {
    cwd = vim.fn.getcwd(),
    staged = name == "staged",
    path = arg or "",
    timeout = M.GIT_TIMEOUT_MS,
  }, M.GIT_TIMEOUT_MS + 2000)
  if type(res) ~= "table" or type(res.label) ~= "string" or type(res.text) ~= "string" then
    local why = err or "the host gave no answer"
    return mention .. " (failed)", string.format("The user mentioned %s but git diff could not run: %s", mention, why)
  end
  return res.label, res.text
end

-- M.IMAGE_TIMEOUT_MS bounds the host's read of one @image (a large
-- screenshot is scaled down).
M.IMAGE_TIMEOUT_MS = 10000

-- The host reads an @image through the workspace's file check and holds
-- it (pkg/host/images.go): it answers the attachment, { label, text,
-- image = id }, or { label, text } saying why the image is not sent.
local function image(arg)
  local path = file_path(arg)
  local res, err = require("magenta.host").request(protocol.requests.image, {
    path = path,
    name = vim.fn.fnamemodify(path, ":~:."), -- as the user would write it
  }, M.IMAGE_TIMEOUT_MS)
  if type(res) ~= "table" or type(res.label) ~= "string" or type(res.text) ~= "string" then
    local why = err or "the host gave no answer"
    -- "image: " is chat.ImageLabelPrefix: the chat draws the label on a
    -- line of its own, like the host's labels for images.
    local label = string.format("image: %s (not sent: %s)", arg, why)
    return label, string.format("The user attached the image %s, but it could not be read: %s", arg, why)
  end
  return res.label, res.text, res.image
end

--- Expands the mentions of text: the files to attach as context files
--- and the attachments ({label, text[, image]}) to send with the message.
function M.expand(text)
  local paths, attachments, seen = {}, {}, {}
  local function attach(label, body, image_id)
    if not seen[label] then
      seen[label] = true
      attachments[#attachments + 1] = { label = label, text = body, image = image_id }
    end
  end
  for _, m in ipairs(M.parse(text)) do
    if m.name == "file" and m.arg then
      paths[#paths + 1] = file_path(m.arg)
    elseif m.name == "image" and m.arg then
      attach(image(m.arg))
    elseif m.name == "buf" then
      vim.list_extend(paths, loaded_file_buffers())
    elseif m.name == "diag" then
      attach(diagnostics())
    elseif m.name == "qf" then
      attach(quickfix())
    elseif m.name == "diff" or m.name == "staged" then
      attach(git_diff(m.name, m.arg))
    end
  end
  return paths, attachments
end

-- Completion ---------------------------------------------------------------

-- IMAGE_EXTENSIONS are the names @image: completes (the host tells the
-- format by content when it reads the file).
M.IMAGE_EXTENSIONS = { png = true, jpg = true, jpeg = true, gif = true, webp = true }

function M.is_image_name(path)
  local ext = path:match("%.([%w]+)$")
  return ext ~= nil and M.IMAGE_EXTENSIONS[ext:lower()] == true
end

-- RG is the ripgrep that lists files ("" skips it: git's list is used).
M.RG = "rg"

local file_cache = { key = nil, at = 0, files = nil }

--- The files under the working directory, .gitignore respected: ripgrep's
--- list, else git's, else none. Cached for a few seconds so typing does
--- not rerun it per key.
function M.files()
  local key = vim.fn.getcwd() .. "\0" .. M.RG
  local now = vim.loop.now()
  if file_cache.files and file_cache.key == key and now - file_cache.at < 5000 then
    return file_cache.files
  end
  local files
  if M.RG ~= "" and vim.fn.executable(M.RG) == 1 then
    files = M.run({ M.RG, "--files", "--hidden", "--glob", "!.git" }, M.FILES_TIMEOUT_MS)
  end
  if not files and vim.fn.executable("git") == 1 then
    files = M.run(
      { "git", "-c", "core.fsmonitor=false", "ls-files", "--cached", "--others", "--exclude-standard" },
      M.FILES_TIMEOUT_MS
    )
  end
  files = files or {}
  if #files > M.FILES_MAX then
    files = vim.list_slice(files, 1, M.FILES_MAX)
  end
  table.sort(files)
  file_cache = { key = key, at = now, files = files }
  return files
end

local function quote(path)
  if path:find("%s") then
    return '"' .. path .. '"'
  end
  return path
end

--- The omnifunc of the input buffer (see autoload/magenta/mentions.vim):
--- @-mentions here, /commands at the start of the input (slash.lua).
function M.omnifunc(findstart, base)
  if findstart == 1 then
    local cursor = api.nvim_win_get_cursor(0)
    local line = api.nvim_get_current_line():sub(1, cursor[2])
    local slash = require("magenta.slash").findstart(cursor[1], line)
    if slash then
      return slash
    end
    -- The last "@" that starts a word, with the cursor still in that word
    -- (a quoted path may hold spaces).
    local start
    for i = #line, 1, -1 do
      local c = line:sub(i, i)
      if c == "@" and (i == 1 or line:sub(i - 1, i - 1):match("[%s%(%[]")) then
        start = i
        break
      end
    end
    if not start then
      return -3
    end
    local word = line:sub(start)
    if word:find("%s") and not word:match('^@file:"[^"]*$') and not word:match('^@image:"[^"]*$') then
      return -3
    end
    return start - 1
  end
  if base:sub(1, 1) == "/" then
    return require("magenta.slash").complete(base)
  end
  local items = {}
  local kind, prefix = base:match("^@(file):(.*)$")
  if not kind then
    kind, prefix = base:match("^@(image):(.*)$")
  end
  if prefix then
    prefix = prefix:gsub('^"', "")
    local starts, contains = {}, {}
    for _, f in ipairs(M.files()) do
      local wanted = kind ~= "image" or M.is_image_name(f)
      if wanted and f:sub(1, #prefix) == prefix then
        starts[#starts + 1] = f
      elseif wanted and prefix ~= "" and f:find(prefix, 1, true) then
        contains[#contains + 1] = f
      end
    end
    for _, f in ipairs(vim.list_extend(starts, contains)) do
      if #items >= M.COMPLETIONS_MAX then
        break
      end
      items[#items + 1] = { word = "@" .. kind .. ":" .. quote(f), abbr = f, menu = "[magenta]" }
    end
    return items
  end
  for _, n in ipairs(M.names) do
    if n.word:sub(1, #base) == base then
      items[#items + 1] = { word = n.word, menu = n.menu }
    end
  end
  return items
end

return M
