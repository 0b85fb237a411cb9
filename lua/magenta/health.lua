-- :checkhealth magenta
local M = {}

local function reporter()
  local h = vim.health
  if h and h.start then
    return h
  end
  local old = require("health") -- Neovim 0.7
  return {
    start = old.report_start,
    ok = old.report_ok,
    warn = old.report_warn,
    error = old.report_error,
    info = old.report_info,
  }
end

-- The newest modification time of the Go sources, to tell a stale binary.
local function newest_source(root)
  local newest = 0
  for _, pattern in ipairs({ "**/*.go", "go.mod", "go.sum" }) do
    for _, f in ipairs(vim.fn.globpath(root, pattern, false, true)) do
      newest = math.max(newest, vim.fn.getftime(f))
    end
  end
  return newest
end

function M.check()
  local r = reporter()
  local config = require("magenta.config")
  local host = require("magenta.host")

  r.start("magenta: Neovim")
  local v = vim.version()
  local version = string.format("%d.%d.%d", v.major, v.minor, v.patch)
  if vim.fn.has("nvim-0.7.2") == 1 then
    r.ok("Neovim " .. version)
  else
    r.error("Neovim " .. version .. " is too old: magenta needs 0.7.2 or newer")
  end

  r.start("magenta: host")
  local bin = host.binary()
  if vim.fn.executable(bin) ~= 1 then
    r.error("the host binary is missing: " .. bin, { "run `make` in " .. host.root() })
  else
    local built, src = vim.fn.getftime(bin), newest_source(host.root())
    if src > built then
      r.warn("the host binary is older than the Go sources: " .. bin, { "run `make` in " .. host.root() })
    else
      r.ok("host binary: " .. bin)
    end
    local info, err = host.request("version")
    if info then
      r.ok(string.format("host %s running (pid %d), log: %s", info.version, info.pid, info.log))
    else
      r.error("the host did not answer: " .. tostring(err), { "see the log: " .. host.log_file() })
    end
  end

  r.start("magenta: providers")
  for _, p in ipairs(config.options.profiles) do
    local var = p.apiKeyEnvVar
    if not var then
      var = p.provider == "anthropic" and "ANTHROPIC_API_KEY" or "OPENAI_API_KEY"
    end
    local needed = p.apiKeyEnvVar ~= nil or p.provider == "anthropic" or p.baseUrl == nil
    local set = (vim.env[var] or "") ~= ""
    local what = string.format("profile %s (%s %s%s)", p.name, p.provider, p.model, p.baseUrl and (" at " .. p.baseUrl) or "")
    if set then
      r.ok(what .. ": " .. var .. " is set")
    elseif needed then
      r.warn(what .. ": " .. var .. " is not set", { "export " .. var .. "=... before starting Neovim" })
    else
      r.ok(what .. ": no API key needed")
    end
  end

  r.start("magenta: tools")
  local rg = host.request("rg")
  if type(rg) == "table" and rg.path then
    r.ok(string.format("ripgrep (grep tool): %s (%s)", rg.path, rg.source))
  elseif type(rg) == "table" and rg.error then
    r.warn("ripgrep (grep tool): " .. rg.error, {
      "install ripgrep (apt-get install ripgrep), set grep.rgPath, or set grep.download = true",
    })
  end
  for _, tool in ipairs({ { "docker", "docker (Docker environments)" } }) do
    if vim.fn.executable(tool[1]) == 1 then
      r.ok(tool[2] .. ": " .. vim.fn.exepath(tool[1]))
    else
      r.warn(tool[2] .. " not found on PATH")
    end
  end
end

return M
