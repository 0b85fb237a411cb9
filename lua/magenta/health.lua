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
  if vim.fn.exists("##WinResized") == 1 then
    r.ok("interactive commands: a resized terminal window resizes the command at once (WinResized)")
  else
    r.info("interactive commands: a resized terminal window resizes the command when the cursor changes window (no WinResized before 0.9)")
  end

  r.start("magenta: options")
  if #config.problems == 0 then
    r.ok("setup() options are valid")
  else
    for _, problem in ipairs(config.problems) do
      r.warn(problem .. " (the default is used)")
    end
  end

  r.start("magenta: host")
  -- After one timeout, later requests are not tried: each would wait again.
  local answered = true
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
    -- Every shell command starts under the small supervisor built beside
    -- the host; without it the host re-executes itself (slower per command).
    local sup = vim.fn.fnamemodify(bin, ":h") .. "/magenta-supervisor"
    if vim.fn.executable(sup) == 1 then
      r.ok("command supervisor: " .. sup)
    else
      r.warn("the command supervisor is missing: " .. sup
        .. " (commands run under the host re-executed instead, a few ms slower each)",
        { "run `make` in " .. host.root() })
    end
    local info, err = host.request("version")
    if info then
      r.ok(string.format("host %s running (pid %d), log: %s", info.version, info.pid, info.log))
    else
      answered = false
      r.error("host: " .. tostring(err), { "see the log: " .. host.log_file() })
    end
  end

  r.start("magenta: providers")
  -- The model SDKs run in a second executable the host starts at the
  -- first request; it must sit beside the host.
  local provider_bin = vim.fn.fnamemodify(bin, ":h") .. "/magenta-provider"
  if vim.fn.executable(provider_bin) ~= 1 then
    r.error("the provider process is missing: " .. provider_bin .. " (requests will fail)",
      { "run `make` in " .. host.root() .. " (it builds magenta-host and magenta-provider)" })
  elseif vim.fn.getftime(provider_bin) < newest_source(host.root()) then
    r.warn("the provider process is older than the Go sources: " .. provider_bin, { "run `make` in " .. host.root() })
  else
    r.ok("provider process: " .. provider_bin .. " (started at the first request)")
  end
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
  local rg = answered and host.request("rg") or nil
  if type(rg) == "table" and rg.path then
    r.ok(string.format("ripgrep (grep tool): %s (%s)", rg.path, rg.source))
  elseif type(rg) == "table" and rg.error then
    r.warn("ripgrep (grep tool): " .. rg.error, {
      "install ripgrep (apt-get install ripgrep), set grep.rgPath, or set grep.download = true",
    })
  end
  if vim.fn.executable("docker") ~= 1 then
    r.info("docker not found on PATH: Docker environments (:help magenta-docker) are unavailable")
  else
    local dv = answered and host.request("docker_version") or nil
    if type(dv) == "table" and dv.version then
      r.ok(string.format("docker: %s, engine %s answers (Docker environments available)", vim.fn.exepath("docker"), dv.version))
    elseif type(dv) == "table" and dv.error then
      r.warn("docker: the engine does not answer: " .. dv.error, { "start the Docker daemon to use Docker environments" })
    else
      r.ok("docker: " .. vim.fn.exepath("docker") .. " (the engine is checked once the host runs)")
    end
  end

  r.start("magenta: MCP servers")
  if next(config.options.mcpServers or {}) == nil and config.options.mcpProjectFile == false then
    r.info("none configured (mcpServers in setup(); :help magenta-mcp)")
  elseif answered then
    for _, line in ipairs(require("magenta.commands").mcp_lines()) do
      if line:find("last error:", 1, true) then
        r.warn(line)
      else
        r.info(line)
      end
    end
  else
    r.info("shown once the host runs")
  end

  r.start("magenta: sandbox")
  local sb = config.options.sandbox or {}
  if sb.enabled == false then
    r.info("off (sandbox.enabled = false): commands that are not read-only ask")
  else
    local st = answered and host.request("sandbox") or nil
    if type(st) ~= "table" or st.state ~= "done" then
      r.info("detected when the host attaches (open the sidebar); bubblewrap on PATH: "
        .. (vim.fn.executable("bwrap") == 1 and vim.fn.exepath("bwrap") or "no"))
    elseif st.available then
      r.ok(string.format("bubblewrap %s (%s): %s", st.version, st.path, st.banner))
    else
      local advice = { "install bubblewrap (apt-get install bubblewrap) and allow unprivileged user namespaces" }
      if sb.enabled == true then
        r.error("sandbox.enabled is true but the sandbox is off: " .. tostring(st.reason), advice)
      else
        r.warn("the sandbox is off: " .. tostring(st.reason) .. "; commands that are not read-only ask", advice)
      end
    end
  end
end

return M
