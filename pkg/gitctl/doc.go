// Package gitctl names the git control paths: the files through which
// git runs programs or is redirected to another repository at the
// user's next git command, outside any sandbox. Every `.git` directory
// or file in a workspace (the top repository's, nested repositories',
// submodules' — `.git/modules/**` —, and whatever `commondir`,
// `worktrees/*/config.worktree` and `info/attributes` inside them say)
// and the directory the top repository's core.hooksPath names (Husky
// points it into the work tree).
//
// One list for three places: the sandbox mounts these paths read-only,
// the shell checker asks before a command names one as a write target,
// and the file guard asks before write_file or edit_file changes one.
// The functions are pure except HooksPath, which reads one config file.
package gitctl
