// Package acp is `magenta-host acp`: magenta as an Agent Client Protocol
// agent over stdio (github.com/coder/acp-go-sdk), so an editor that
// speaks ACP (Zed, avante.nvim, codecompanion.nvim) drives the same
// threads, tools, checker and sandbox as the Neovim sidebar.
//
// It is a third front end over chat.App. A session is a thread of one
// App working in the local environment of the session's cwd (built by
// pkg/localenv); prompts are sent to it and the turn's events, observed
// on every thread (a chat.Observer), become session/update
// notifications — message and thought chunks, tool calls and their
// updates, the plan from todo_write — written in order by one writer
// goroutine that the prompt's answer waits for. Approvals go to the
// client as session/request_permission through an approval.Policy
// (YES / ALWAYS / NO). session/cancel, or a client that goes away,
// aborts the turn as :Magenta abort does. session/load reopens a saved
// thread (the Neovim host's store) and replays its conversation.
//
// Not yet: the client's fs methods — a read or write through the client
// follows links, which would undo the guard's check that the file read
// or written is the one it judged (capabilities.Checked, Beneath), so
// files stay on the disk FileIO until the protocol can say "no links" —
// and the client's terminals. The config file's MCP servers and hooks
// run as setup()'s; a workspace's .mcp.json and hooks are not read.
package acp
