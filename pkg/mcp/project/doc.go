// Package project reads a workspace's .mcp.json (the project-scope file
// Claude Code uses) and decides whether its servers may start.
//
// A cloned repository must not start programs by itself, so the file's
// servers start only after the user trusted it: Gate asks once per
// workspace through the approval broker (drawn in the sidebar with YES /
// NO), and Store remembers a YES per workspace path as a Fingerprint. A
// NO holds for the session. Parse turns the file into server
// configurations, expanding ${VAR} and ${VAR:-default} as Claude Code
// does.
//
// A trust covers what runs, not only the file (fingerprint.go): for each
// stdio server, the executable its command resolves to (hashed when it
// lies in the workspace or is a small script), and for interpreters
// (bash, node, python, …) and launchers (npx, pnpm dlx, bunx, uvx, pipx
// run, env) the workspace files they would run — scripts named in the
// arguments, node_modules/.bin/<bin> and the package's package.json and
// bin scripts, .npmrc, a local --from source — recorded "missing" when
// absent, so a file planted later counts as a change. The gate checks
// the fingerprint whenever tools are needed, and Gate.Verify checks a
// server's part of it afresh before the manager starts or restarts it;
// a difference asks again, and the question says what changed.
//
// The question (Question, show.go) shows everything trusted: per server
// its kind, the command and every argument (Visible: quoted, with
// newlines, control and format characters escaped and long runs of
// spaces counted), env and headers as written with ${VAR} references by
// name and secret-looking literals masked (Masked), the URL, and what it
// runs. Project stdio servers start with the sandbox's environment
// allowlist plus their "env" (pkg/mcp); setup() servers are unchanged.
package project
