// Package hooks runs hooks in Claude Code's format and protocol: shell
// commands the user (or a workspace) configures to run on a thread's
// events, which read the event as JSON on stdin and answer with their
// exit status and, optionally, JSON on stdout.
//
// # Events and answers
//
//   - PreToolUse, before a tool call (the matcher names tools: ours,
//     "bash_command|edit_file", or "mcp__<server>__.*"): exit 2 blocks
//     the call, stderr being the reason the model reads as the call's
//     result; so do {"decision": "block", "reason": …} and
//     {"hookSpecificOutput": {"permissionDecision": "deny",
//     "permissionDecisionReason": …}}; "ask" asks the user in the call
//     (YES / NO); "allow" is not an approval — magenta's own permission
//     checks still apply.
//   - PostToolUse, after a call that succeeded: exit 2's stderr,
//     {"decision": "block", "reason"} and additionalContext are added to
//     the result for the model.
//   - UserPromptSubmit, before the user's message goes: exit 2 or a
//     "block" decision refuses it (the reason is shown to the user, never
//     to the model; the text goes back to the input); plain stdout or
//     additionalContext is context sent with it.
//   - SessionStart, with a thread's first message (source "startup", or
//     "resume" for a reopened thread): stdout or additionalContext is
//     context sent with it.
//   - Stop, when the agent ends a turn cleanly with nothing waiting:
//     exit 2 or a "block" decision sends the reason back to the model,
//     which goes on; stop_hook_active tells the hook it is already
//     continuing, and MaxStopContinuations bounds the loop.
//
// Any other status, a timeout (the hook's "timeout" in seconds, 60 by
// default) or JSON that cannot be read is a failure: shown to the user,
// and the event goes on as if the hook had not run. "continue": false
// blocks what it can block; systemMessage is shown. The input has
// Claude Code's fields: session_id (the thread's id), transcript_path
// (""), cwd, permission_mode ("default"), hook_event_name, tool_name,
// tool_input, tool_use_id, tool_response ({text, is_error}), prompt,
// source, model, stop_hook_active; CLAUDE_PROJECT_DIR is set to the
// thread's working directory. Hooks of one event run in parallel; a
// command configured twice runs once. Sub-agents' tool calls run the
// tool hooks; their messages and ends run no prompt or Stop hook (Claude
// Code has SubagentStop for that, which magenta does not run, nor its
// other events).
//
// Every hook runs in a process group of its own. At its timeout, or when
// the turn is aborted, the group gets SIGTERM and, a second later,
// SIGKILL; what the hook left in its group is killed when it exits, and
// stdout and stderr are read to the end but only MaxOutput of each is
// kept (the note says how much there was), so a hook can neither hang a
// turn nor fill the memory.
//
// # Where hooks come from, and the threat model
//
// setup()'s hooks option is the user's own configuration: trusted as it
// is, run as the user (bash on this machine, the host's environment,
// unconfined, as Claude Code runs hooks), in any thread.
//
// A workspace's .claude/settings.json and .claude/settings.local.json
// come with a cloned repository: nothing in them runs before the user
// trusts them (Gate). The first message of a session reads them (and
// every later message reads them again); when they hold hooks, a
// question asked of the workspace (drawn in every thread, YES / NO)
// shows every hook verbatim — event, matcher, command escaped so that
// nothing is hidden, timeout, file — and the workspace scripts the
// commands name. A YES is remembered per workspace (its real path) in
// stdpath("data")/magenta/hooks-trust.json as a fingerprint of the hooks
// as parsed (not the files' bytes: an edit of the permissions asks
// nothing) and of those scripts' contents; a change of either asks
// again, and a NO holds until Neovim exits. The agent can write
// workspace files, so before each run of a workspace hook the scripts
// its command runs (a program given as a path, an interpreter's script;
// after $CLAUDE_PROJECT_DIR, the one variable expanded) are hashed
// again, and a changed one does not run; until the user answers the
// question asked again, the PreToolUse hooks trusted last hold their
// calls back (the model is told why) rather than let them through.
// Programs a command finds on PATH, and files a script reads in turn,
// are not covered: that is what the sandbox is for.
//
// A workspace's hooks are the workspace's: the agent may write the
// workspace (confined commands do, with the sandbox), so it can remove
// the settings files, and with them their hooks — which is not running
// anything, the direction that needs no trust. A policy the user
// depends on belongs in setup(), out of the agent's reach.
//
// Workspace hooks run only in local threads (a Docker thread's files
// are the container's). There they run as commands the agent runs do:
// under the sandbox when it is on (bubblewrap over the same policy: the
// workspace writable but its git control paths, the home directory
// empty but toolchains, secrets hidden, network as configured), so a
// trusted workspace hook cannot read ~/.ssh or an API key file; with
// the sandbox off, unconfined, with the sandbox's environment allowlist
// only (PATH, HOME, the locale, toolchain variables), as .mcp.json's
// servers. In a Docker thread, setup()'s hooks run inside the container
// (docker exec, ended there at their timeout), where the thread's files
// are.
//
// # Where it plugs in
//
// The Engine is a tools.Interceptor (PreToolUse, PostToolUse; after
// checkpoints, before the LSP check in pkg/host/interceptors.go), a
// chat.PromptCheck (UserPromptSubmit, SessionStart: a step of the
// thread's readingContext state) and a chat.Observer (Stop, on
// TurnEnded, running the hooks on a goroutine and coming back through
// chat.Thread.ContinueAfter). :Magenta hooks lists every hook, its
// source and whether it runs (Engine.List).
package hooks
