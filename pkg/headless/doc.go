// Package headless is `magenta-host run [flags] PROMPT`: one thread in
// the current directory, with the local environment (pkg/localenv, the
// builder the Neovim host uses too) and no editor, for scripts and CI.
//
// It is a front end over the same chat.App as the Neovim host; what it
// differs in is plugged in where the host plugs in Neovim:
//
//   - the options come from a JSON file with setup()'s names
//     (config.go): merged over lua/magenta/config.lua's defaults the way
//     setup() merges, each option decoded on its own so every problem is
//     named, then pkg/config's validation;
//   - approvals are answered at once by an approval.Policy per
//     --approve (state.decide): never, sandbox (the default: what the
//     sandbox confines runs, what would ask is declined and the model is
//     told why in DeclinedSandbox's words) or always;
//   - the screen is a chat.Screen that draws nothing (screen.go); what
//     happens is observed instead (state.go, a chat.Observer on every
//     thread, sub-agents included) and written as text or, with --json,
//     as one versioned Event per line (events.go) by a writer goroutine,
//     so a slow reader never blocks a thread;
//   - limits: --max-turns counts the main thread's replies, --max-cost
//     sums every thread's cost (MetaChanged); passing one aborts the turn
//     as :Magenta abort does and a tools.Interceptor refuses any call
//     that would still start;
//   - SIGINT/SIGTERM abort the turn; the app is then closed, which
//     cancels and waits for everything the threads started;
//   - the config file's hooks and MCP servers (StartMCP, shared with
//     pkg/acp) run as setup()'s do; a workspace's .claude/settings.json
//     and .mcp.json are not read, since they run only once trusted and a
//     run has no one to ask.
//
// Saved threads are the Neovim host's: the store under Neovim's default
// stdpath("data") (DataDir), so --thread continues a thread made in the
// editor, and the editor lists what a run saved. The exit codes are the
// Exit* constants.
package headless
