package sandbox

import (
	"os"
	"path/filepath"

	"github.com/magenta-nvim/magenta/pkg/gitctl"
	"github.com/magenta-nvim/magenta/pkg/secrets"
)

// MaxScanEntries bounds the directory entries the workspace scan looks
// at. A workspace larger than this is scanned only in part (breadth
// first, so shallow secrets are found first) and Launch.Complete is
// false: the caller should then not trust the masks to cover every
// secret (the shell checker asks the user instead of confining).
const MaxScanEntries = 20000

// skippedDirs are not scanned: git's internals (every .git is mounted
// read-only as a whole) and dependency trees, which hold other people's
// packages rather than the user's secrets and can hold hundreds of
// thousands of files. Readable agrees: secret names inside them count as
// readable, because nothing there is masked. A command cannot move a
// masked secret into one of them: every directory between the workspace
// and a mask is a mount point, which rename(2) refuses (EBUSY).
var skippedDirs = map[string]bool{
	".git": true, "node_modules": true, ".venv": true, "venv": true,
	"__pycache__": true, ".tox": true, ".mypy_cache": true, ".gradle": true,
}

func skipDir(name string) bool { return skippedDirs[name] }

// scanResult is what the workspace scan found.
type scanResult struct {
	secrets  []string // paths inside the workspace whose name is a secret
	gitPaths []string // every .git directory, file or link (gitctl): mounted read-only
	complete bool     // false when MaxScanEntries stopped the scan
}

// scanWorkspace walks the workspace breadth first, without following
// symlinked directories, and collects the entries whose own name is a
// secret (secrets.In) and every .git entry, without descending into
// them. Unreadable directories are passed over: the sandbox cannot read
// them either.
func scanWorkspace(root string, limit int) scanResult {
	queue := []string{root}
	seen := 0
	var found, gitPaths []string
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if seen >= limit {
				return scanResult{secrets: found, gitPaths: gitPaths, complete: false}
			}
			seen++
			path := filepath.Join(dir, e.Name())
			if gitctl.DotGit(e.Name()) {
				gitPaths = append(gitPaths, path)
				continue
			}
			if secrets.In([]string{e.Name()}) != "" {
				found = append(found, path)
				continue
			}
			if e.IsDir() && !skipDir(e.Name()) {
				queue = append(queue, path)
			}
		}
	}
	return scanResult{secrets: found, gitPaths: gitPaths, complete: true}
}
