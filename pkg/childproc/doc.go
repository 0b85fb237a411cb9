// Package childproc holds what the host does alike for the helper
// processes it starts and speaks newline-delimited JSON with — the
// provider process (package provider/remote) and the MCP gateway (package
// mcp): waiting for the greeting that says the process speaks this host's
// protocol, and keeping what it writes to stderr (logged, and its last
// lines added to an error about it).
package childproc
