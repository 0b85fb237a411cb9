// Package project reads a workspace's .mcp.json (the project-scope file
// Claude Code uses) and decides whether its servers may start.
//
// A cloned repository must not start programs by itself, so the file's
// servers start only after the user trusted it: Gate asks once per
// workspace through the approval broker (drawn in the sidebar with YES /
// NO), and Store remembers a YES per workspace path and file content
// hash (a changed file asks again) in a small JSON file. A NO holds for
// the session. Parse turns the file into server configurations,
// expanding ${VAR} and ${VAR:-default} as Claude Code does.
package project
