// Package tools defines the tools the model may call and the registry
// that runs them.
//
// A Tool has a Spec (name, description, JSON schema of its input) and a
// Run method. Most tools are built with Typed, which infers the schema
// from a Go parameter struct, validates and decodes the model's input
// before the tool sees it, and renders the description from an embedded
// <tool>.md whose {{.Field}} placeholders are filled with the same
// constants the code uses (describe; deliberately not text/template).
// The built-in tools (MustTyped) build schema and description on first
// use, so making the registry costs nothing on the first toggle's path;
// Registry.Warm builds them ahead of the first request.
//
// Tools reach the world only through the capabilities.Environment passed
// in each Call, and reach their thread only through ThreadControl and,
// for the sub-agent tools, Subagents.
//
// Besides its fixed tools, a registry may consult Providers (MCP
// servers, package mcp) whose tools come and go while the host runs; it
// asks them for every request and call, so a server that became ready
// is offered from the next request on.
//
// A failure the model should react to is a Result with IsError set; a Go
// error is reserved for failures of the host itself. The registry turns
// panics into error results, so a broken tool cannot take the host down.
package tools
