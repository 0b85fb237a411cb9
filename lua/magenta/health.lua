-- :checkhealth magenta
local protocol = require("magenta.protocol")
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

-- What `bin --version` prints (the Makefile's -X main.version), or nil.
local function binary_version(bin)
  local out = require("magenta.mentions").run({ bin, "--version" }, 3000)
  local v = out and vim.trim(out[1] or "")
  return v ~= "" and v or nil
end

-- Whether the process pid runs a copy of bin that was replaced on disk
-- since it started (Linux: /proc/<pid>/exe names the file it was started
-- from, with " (deleted)" once `make` replaced it). A rebuild keeps the
-- version string when the tree was already dirty; this still sees it.
-- nil when it cannot tell (another system, or pid runs something else).
local function replaced_since_start(pid, bin)
  local ok, exe = pcall(vim.loop.fs_readlink, "/proc/" .. tostring(pid) .. "/exe")
  if not ok or type(exe) ~= "string" then
    return nil
  end
  local real = vim.loop.fs_realpath(bin) or bin
  local deleted = exe:match("^(.*) %(deleted%)$")
  if deleted then
    return deleted == real or deleted == bin
  end
  if exe == real then
    return false
  end
  return nil
end

-- Says to restart when the host that runs is older than the binary on
-- disk (the plugin was updated while Neovim ran): its version differs
-- from what the binary reports, or it runs a file since replaced.
local function check_running_host(r, info, bin)
  local on_disk = binary_version(bin)
  local advice = { ":Magenta restart (the next command starts the new host; the shown thread reopens when it was saved)" }
  if on_disk and info.version and on_disk ~= info.version then
    r.warn(string.format("the running host is %s but %s is %s (the plugin was updated): restart the host to use it",
      tostring(info.version), bin, on_disk), advice)
  elseif replaced_since_start(info.pid, bin) then
    r.warn(string.format("the running host (pid %d) was started from a binary since rebuilt: restart the host to use the new %s",
      info.pid, bin), advice)
  end
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
      -- A bad profile is left out, not replaced (validate.lua says so).
      if problem:find(" is left out: ", 1, true) then
        r.warn(problem)
      else
        r.warn(problem .. " (the default is used)")
      end
    end
  end
  local no_profile = config.no_profile_error()
  if no_profile then
    r.error("no usable profile: every profile given to setup() was left out, so magenta starts no thread"
      .. " (the default profile is not used in place of yours)", { "fix the profiles named above in setup()" })
  end

  r.start("magenta: host")
  -- After one timeout, later requests are not tried: each would wait again.
  local answered = not no_profile
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
    -- Without a profile the host would not attach: it is not started.
    local info, err
    if no_profile then
      err = "not started: no usable profile"
    else
      info, err = host.request(protocol.requests.version)
    end
    if info then
      r.ok(string.format("host %s running (pid %d), log: %s", info.version, info.pid, info.log))
      check_running_host(r, info, bin)
    elseif no_profile then
      r.info("host: " .. err)
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
    -- The Anthropic SDK appends /v1/messages to baseUrl.
    local base = p.provider == "anthropic" and type(p.baseUrl) == "string" and p.baseUrl:gsub("/+$", "")
    if base and base:match("/v1$") then
      r.warn(string.format("profile %s: an Anthropic baseUrl is the API root without /v1 (requests go to %s/v1/messages)", p.name, base),
        { "baseUrl = \"" .. base:gsub("/v1$", "") .. "\"" })
    end
    if set then
      r.ok(what .. ": " .. var .. " is set")
    elseif needed then
      r.warn(what .. ": " .. var .. " is not set", { "export " .. var .. "=... before starting Neovim" })
    else
      r.ok(what .. ": no API key needed")
    end
  end

  r.start("magenta: tools")
  local rg = answered and host.request(protocol.requests.rg) or nil
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
    local dv = answered and host.request(protocol.requests.docker_version) or nil
    if type(dv) == "table" and dv.version then
      r.ok(string.format("docker: %s, engine %s answers (Docker environments available)", vim.fn.exepath("docker"), dv.version))
    elseif type(dv) == "table" and dv.error then
      r.warn("docker: the engine does not answer: " .. dv.error, { "start the Docker daemon to use Docker environments" })
    else
      r.ok("docker: " .. vim.fn.exepath("docker") .. " (the engine is checked once the host runs)")
    end
  end
  -- SSH threads use the OpenSSH client on PATH (:help magenta-ssh).
  if vim.fn.executable("ssh") ~= 1 then
    r.info("ssh not found on PATH: SSH environments (:help magenta-ssh) are unavailable")
  else
    local out = vim.fn.system({ "ssh", "-V" })
    local version = vim.v.shell_error == 0 and vim.trim(out):match("^[^,\n]+") or nil
    r.ok(string.format("ssh: %s%s (SSH environments available; your ~/.ssh/config applies)", vim.fn.exepath("ssh"),
      version and (", " .. version) or ""))
  end

  r.start("magenta: MCP servers")
  local configured = next(config.options.mcpServers or {}) ~= nil or config.options.mcpProjectFile ~= false
  -- The MCP SDK runs in a third executable the host starts with the
  -- first server; it must sit beside the host.
  local gateway_bin = vim.fn.fnamemodify(bin, ":h") .. "/magenta-mcp"
  if not configured then
    r.info("none configured (mcpServers in setup(); :help magenta-mcp)")
  elseif vim.fn.executable(gateway_bin) ~= 1 then
    r.error("the MCP gateway is missing: " .. gateway_bin .. " (no MCP server can start)",
      { "run `make` in " .. host.root() .. " (it builds magenta-mcp beside magenta-host)" })
  elseif vim.fn.getftime(gateway_bin) < newest_source(host.root()) then
    r.warn("the MCP gateway is older than the Go sources: " .. gateway_bin, { "run `make` in " .. host.root() })
  else
    r.ok("MCP gateway: " .. gateway_bin .. " (started with the first server)")
  end
  if configured and answered then
    -- The section has the heading mcp_lines would start with.
    for _, line in ipairs(require("magenta.commands").mcp_lines(true)) do
      if line:find("last error:", 1, true) or line:find("the host did not answer", 1, true) then
        r.warn(vim.trim(line))
      else
        r.info(vim.trim(line))
      end
    end
  elseif configured then
    r.info("shown once the host runs")
  end

  r.start("magenta: sandbox")
  local sb = config.options.sandbox or {}
  if sb.enabled == false then
    r.info("off (sandbox.enabled = false): commands that are not read-only ask")
  else
    local st = answered and host.request(protocol.requests.sandbox) or nil
    if type(st) ~= "table" or st.state ~= "done" then
      r.info("detected when the host attaches (open the sidebar); bubblewrap on PATH: "
        .. (vim.fn.executable("bwrap") == 1 and vim.fn.exepath("bwrap") or "no"))
    elseif st.available then
      r.ok(string.format("bubblewrap %s (%s): %s", st.version, st.path, st.banner))
      -- Confined commands go through one long-lived confinement parent
      -- once it is ready (:help magenta-sandbox-parent).
      if st.parent_ready == true then
        r.ok("confinement parent: running (confined commands start without a bubblewrap each)")
      elseif st.parent_why ~= nil then
        r.info("confinement parent: " .. tostring(st.parent_why)
          .. " (meanwhile bubblewrap confines each command itself)")
      end
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
