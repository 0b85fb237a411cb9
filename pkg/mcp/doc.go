// Package mcp runs Model Context Protocol servers the user configured
// (mcpServers in setup()) and offers their tools to the model.
//
// A Manager owns one client session per server, through the official SDK
// (github.com/modelcontextprotocol/go-sdk): a stdio server is a child
// process in its own process group, so stopping it kills everything it
// started; a URL is spoken to over streamable HTTP. Servers start in the
// background when the sidebar first opens (Manager.Start), or else the
// first time a request lists tools (Manager.Tools), which never waits.
// A thread's first request may wait briefly for servers still on their
// first start (Starting, WaitStarted; the bound is the chat's), and goes
// without those not ready by then: their tools join a later request. A
// server that fails or crashes is started again, with a growing delay,
// the next time its tools are needed.
//
// Servers come from setup() and, once the user trusted it, from the
// workspace's .mcp.json (package project hands them over with
// SetProjectServers; a setup() server of the same name wins). Progress
// lists the servers starting or failed, for the thread's header.
//
// Each server tool becomes a tools.Tool named mcp__<server>__<tool>,
// asking the user before its first call unless the server's allow list
// names it.
package mcp
