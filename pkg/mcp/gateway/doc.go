// Package gateway is the MCP gateway process's side of package mcpwire
// (cmd/magenta-mcp): it holds one session per server the host connects,
// through the official SDK (github.com/modelcontextprotocol/go-sdk), and
// answers the host's requests on them. A stdio server is a child in its
// own process group, killed with the group when the host closes its
// session or when the gateway's stdin reaches EOF (the host went), so
// nothing a server started outlives the host.
//
// What to start, when, and what to do about a failure stays in the host
// (package mcp): the gateway only connects, lists, calls and closes, and
// says when a session ended by itself.
package gateway
