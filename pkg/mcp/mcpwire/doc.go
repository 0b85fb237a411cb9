// Package mcpwire is the protocol between the host (package mcp) and the
// MCP gateway process (package gateway, cmd/magenta-mcp), which holds the
// sessions with the user's MCP servers through the official SDK.
//
// Why a process: the SDK and what it pulls in (encoding/gob, OAuth,
// its own JSON and URI-template packages) cost the host's every start
// their package initialisers and page faults — on the first :Magenta
// toggle's path — though most users configure no MCP server, and those
// who do need the servers only at the first request. The gateway starts
// with the first server.
//
// Newline-delimited JSON on the gateway's stdin and stdout. The gateway
// greets with a Reply carrying Hello (protocol version, pid) so builds
// that disagree refuse each other with a message. The host sends
// Requests with increasing ids; the gateway answers each with exactly
// one Reply of the same id, in any order, and sends events (Reply with
// Event set and ID 0) when a server's tool list changed or its session
// ended. A Request with Op OpCancel cancels the request named by its
// Cancels field. The gateway ends, killing every stdio server's process
// group, when its stdin reaches EOF.
package mcpwire
