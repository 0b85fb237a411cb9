package bashperm

// RepositoryReason says why git run from cwd (an absolute directory) on
// the user's behalf — @diff and @staged, which run `git diff` of the work
// tree — must not run: the repository git would use, or one it reaches
// (a submodule, a nested repository, a linked worktree), has a config
// that names a program git could run (a filter's clean command, a diff
// driver, fsmonitor, an include…). Filters run on `git diff` of work-tree
// files whatever the command line says, so only not running git helps.
// "" means none was found, or there is no repository (git then fails
// on its own).
//
// It is the repository part of Check for a git command, without the
// workspace: the user asked for this repository, wherever it is. The
// user's global and system configs are theirs and trusted; only the
// repository's own files, which a cloned project or a confined command
// could have planted, are read.
func RepositoryReason(cwd string) string {
	r := &run{ws: "/"}
	_, reason := r.checkGitRepo(cwd)
	return reason
}
