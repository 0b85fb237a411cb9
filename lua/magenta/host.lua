-- The host process: started by the first request (jobstart, directly),
-- then registered with Neovim's remote-plugin machinery
-- (remote#host#Register + the manifest in rplugin/magenta.vim) so the
-- MagentaEvent/MagentaRequest functions reach it; replaced by a fresh one
-- after it dies (then through remote#host's factory, M.start).
local config = require("magenta.config")

local protocol = require("magenta.protocol")
local M = {}

M.HOST = "magenta"
M.EVENT = "0:function:MagentaEvent"
M.REQUEST = "0:function:MagentaRequest"

local state = {
  registered = false,
  job = nil, -- job id of the host we started
  fixed = nil, -- a channel given by use_channel (tests)
  attached = nil, -- the channel we sent "attach" to
  stopping = false,
  stderr = {},
  shown = nil, -- the thread the host last showed; a new host reopens it
}

--- Called by the host when it shows a thread.
function M.shown(id)
  state.shown = id
end

local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h:h")

function M.root()
  return root
end

function M.binary()
  return config.options.host.binary or (root .. "/bin/magenta-host")
end

function M.log_file()
  if config.options.host.logFile then
    return config.options.host.logFile
  end
  local ok, dir = pcall(vim.fn.stdpath, "log")
  if not ok then
    dir = vim.fn.stdpath("cache") -- Neovim 0.7 has no "log"
  end
  return dir .. "/magenta.log"
end

local function register(factory)
  if not state.registered then
    vim.cmd("source " .. vim.fn.fnameescape(root .. "/rplugin/magenta.vim"))
    state.registered = true
  end
  vim.fn["magenta#host#register"](factory)
end

-- Forget the current host so the next request starts a new one.
local function reset()
  state.job, state.attached = nil, nil
  if state.fixed == nil then
    register(0)
  end
end

--- Called by the remote#host factory (autoload/magenta/host.vim).
--- Returns the channel id, or 0 when the host cannot start.
function M.start()
  local bin = M.binary()
  if vim.fn.executable(bin) ~= 1 then
    vim.schedule(function()
      reset()
      vim.notify(
        "magenta: the host binary " .. bin .. " is missing. Build it with `make` in " .. root
          .. " (plugin managers: build = \"make\").",
        vim.log.levels.ERROR
      )
    end)
    return 0
  end
  state.stderr, state.stopping = {}, false
  local job
  job = vim.fn.jobstart({ bin, "--log", M.log_file() }, {
    rpc = true,
    on_stderr = function(_, data)
      for _, line in ipairs(data or {}) do
        if line ~= "" then
          table.insert(state.stderr, line)
          if #state.stderr > 50 then
            table.remove(state.stderr, 1)
          end
        end
      end
    end,
    on_exit = function(_, code)
      if state.job ~= job then
        return
      end
      local expected = state.stopping or vim.v.exiting ~= vim.NIL
      reset()
      if not expected then
        local last = state.stderr[#state.stderr]
        vim.notify(
          string.format(
            "magenta: the host exited (code %d)%s. The next :Magenta command starts a new one. Log: %s",
            code,
            last and (": " .. last) or "",
            M.log_file()
          ),
          vim.log.levels.ERROR
        )
      end
    end,
  })
  if job <= 0 then
    vim.schedule(function()
      reset()
      vim.notify("magenta: could not start " .. bin, vim.log.levels.ERROR)
    end)
    return 0
  end
  state.job = job
  return job
end

--- Use an existing channel instead of starting a host (the test harness
--- serves the host's handlers in-process on its own connection).
function M.use_channel(chan)
  state.fixed = chan
  state.attached = nil
  register(chan)
end

-- The channel to talk to: the fixed one, the job we started, or one
-- remote#host started (a MagentaEvent() call made before any request
-- starts the host through the factory). When none runs, the job is
-- started here directly: going through remote#host#Require first
-- would source the manifest and Neovim's remote#host scripts on the
-- first toggle's path (~0.6 ms), before the host process can start.
-- The remote functions are bound to the job right after.
local function current_channel()
  if state.fixed then
    return state.fixed
  end
  if state.job then
    return state.job
  end
  if state.registered then
    local ok, chan = pcall(vim.fn["remote#host#Require"], M.HOST)
    if ok and chan ~= 0 then
      return chan
    end
    if ok then
      reset()
    end
    return nil
  end
  local job = M.start()
  if job <= 0 then
    return nil
  end
  vim.schedule(function()
    if state.job == job and not state.registered then
      register(job)
    end
  end)
  return job
end

--- Starts the host process, without attaching, when none runs: the
--- caller goes on with its own work (loading the sidebar's modules,
--- making its buffers and windows, ~3-5 ms) while the host starts (the
--- longer part of a first toggle), and attaches with M.channel(). On
--- Neovim before 0.12 starting a process forks Neovim, and pages it
--- writes afterwards fault once more; measured, the overlap still wins
--- there (0.7.2: 9.2-9.7 -> 7.9-8.5 ms, 0.10: 8.9-10.1 -> 7.9-8.2).
function M.prestart()
  if state.attached or state.fixed or state.job or state.registered then
    return
  end
  if vim.fn.executable(M.binary()) ~= 1 then
    return -- M.channel() says so
  end
  current_channel()
end

--- The host's channel, starting the host when needed; nil when it
--- cannot start.
function M.channel()
  local chan = current_channel()
  if not chan then
    return nil
  end
  if state.attached ~= chan then
    state.attached = chan
    local payload = require("magenta.sidebar").attach_payload()
    payload.options = config.for_host()
    payload.cwd = vim.fn.getcwd()
    payload.dataDir = vim.fn.stdpath("data")
    payload.resume = state.shown
    vim.rpcnotify(chan, M.EVENT, { protocol.events.attach, payload })
    M.track_lsp()
  end
  return chan
end

--- Starts following which language servers have published diagnostics
--- (the diagnostics tool waits for them) when vim.lsp is loaded. Without
--- loading it: setup() has installed the hook that starts following at
--- the first server attach (init.lua).
function M.track_lsp()
  if package.loaded["vim.lsp"] then
    require("magenta.lsp").track()
  end
end

--- Sends an event to the host. Returns true when it was sent.
function M.notify(name, payload)
  local chan = M.channel()
  if not chan then
    return false
  end
  local ok, err = pcall(vim.rpcnotify, chan, M.EVENT, { name, payload or vim.empty_dict() })
  if not ok then
    reset()
    vim.notify("magenta: could not reach the host: " .. tostring(err), vim.log.levels.ERROR)
  end
  return ok
end

--- Sends an event only if a host is running (never starts one).
function M.notify_if_running(name, payload)
  if state.attached then
    pcall(vim.rpcnotify, state.attached, M.EVENT, { name, payload or vim.empty_dict() })
  end
end

-- Requests waiting for their answer, by id: nil while waiting, then
-- { result, err }. An answer arriving after its request gave up is dropped.
local waiting = {}
local last_request = 0

--- Called by the host (nvim_exec_lua) with the answer to a request.
function M.reply(id, result, err)
  if waiting[id] ~= nil then
    waiting[id] = { result = result, err = err }
  end
end

--- A synchronous request with a timeout (host.requestTimeout ms, or
--- timeout_ms); returns the result, or nil and an error.
--- rpcrequest() cannot time out: a stopped or hung host would freeze
--- Neovim (and :checkhealth). So the request goes out as a notification
--- and the host answers with M.reply, which vim.wait() waits for.
function M.request(name, payload, timeout_ms)
  local chan = M.channel()
  if not chan then
    return nil, "the host is not running"
  end
  if vim.wait == nil or vim.in_fast_event() then
    -- No way to wait here: fall back to the blocking call.
    local ok, res = pcall(vim.rpcrequest, chan, M.REQUEST, { name, payload or vim.empty_dict() })
    if not ok then
      return nil, tostring(res)
    end
    return res
  end
  timeout_ms = timeout_ms or config.options.host.requestTimeout
  last_request = last_request + 1
  local id = last_request
  waiting[id] = false
  local ok, err = pcall(vim.rpcnotify, chan, M.EVENT, {
    protocol.events.request,
    { id = id, name = name, payload = payload or vim.empty_dict() },
  })
  if not ok then
    waiting[id] = nil
    return nil, "could not reach the host: " .. tostring(err)
  end
  vim.wait(timeout_ms, function()
    return waiting[id] ~= false
  end, 10)
  local answer = waiting[id]
  waiting[id] = nil
  if not answer then
    return nil, string.format(
      "the host did not answer %q within %d ms (it may be stopped or hung; :Magenta restart starts a new one)",
      name,
      timeout_ms
    )
  end
  if answer.err ~= nil and answer.err ~= vim.NIL and answer.err ~= "" then
    return nil, answer.err
  end
  return answer.result
end

function M.running()
  return state.attached ~= nil
end

--- Stops the host; the next request starts a new one.
function M.stop()
  if state.job then
    state.stopping = true
    vim.fn.jobstop(state.job)
  end
end

return M
