package sandbox

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

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
// secret (secrets.Name) and every .git entry, without descending into
// them. Unreadable directories are passed over: the sandbox cannot read
// them either. A directory unchanged since an earlier scan (dirCache)
// is not read again.
func scanWorkspace(root string, limit int) scanResult {
	queue := []string{root}
	seen := 0
	var found, gitPaths []string
	now := time.Now()
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		d, ok := scanDir(dir, now)
		if !ok {
			continue
		}
		if seen+d.entries > limit {
			return scanResult{secrets: found, gitPaths: gitPaths, complete: false}
		}
		seen += d.entries
		for _, name := range d.git {
			gitPaths = append(gitPaths, filepath.Join(dir, name))
		}
		for _, name := range d.secrets {
			found = append(found, filepath.Join(dir, name))
		}
		for _, name := range d.subdirs {
			queue = append(queue, filepath.Join(dir, name))
		}
	}
	return scanResult{secrets: found, gitPaths: gitPaths, complete: true}
}

// scannedDir is what the scan keeps of one directory, with the stamp
// that says whether it is still true: its inode, change and
// modification times (creating, removing or renaming an entry changes
// them; a change inside a subdirectory is that subdirectory's).
type scannedDir struct {
	ino                   uint64
	mtime, ctime          int64
	entries               int
	subdirs, secrets, git []string // names
}

// dirCache holds scanned directories by path, for every workspace this
// process scans; it is emptied when it passes maxCachedDirs.
var dirCache = struct {
	sync.Mutex
	m map[string]*scannedDir
}{m: map[string]*scannedDir{}}

const maxCachedDirs = 200_000

// racyWindow: a directory changed this recently may change again within
// the same timestamp, so it is read again rather than trusted (git's
// "racy" index entries). A variable for the benchmarks.
var racyWindow = 2 * time.Second

// scanDir returns what dir holds, from the cache when its stamp has not
// changed, else read anew; ok is false when it cannot be read.
func scanDir(dir string, now time.Time) (*scannedDir, bool) {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return nil, false
	}
	st, _ := fi.Sys().(*syscall.Stat_t)
	var stamp scannedDir
	if st != nil {
		stamp = scannedDir{ino: st.Ino, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
	}
	dirCache.Lock()
	c := dirCache.m[dir]
	dirCache.Unlock()
	if c != nil && st != nil && c.ino == stamp.ino && c.mtime == stamp.mtime && c.ctime == stamp.ctime {
		return c, true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	d := &stamp
	d.entries = len(entries)
	parent := filepath.Base(dir)
	for _, e := range entries {
		name := e.Name()
		switch {
		case gitctl.DotGit(name):
			d.git = append(d.git, name)
		case secrets.Name(parent, name):
			d.secrets = append(d.secrets, name)
		case e.IsDir() && !skipDir(name):
			d.subdirs = append(d.subdirs, name)
		}
	}
	recent := now.Sub(time.Unix(0, max(stamp.mtime, stamp.ctime))) < racyWindow
	if st != nil && !recent {
		dirCache.Lock()
		if len(dirCache.m) >= maxCachedDirs {
			dirCache.m = map[string]*scannedDir{}
		}
		dirCache.m[dir] = d
		dirCache.Unlock()
	}
	return d, true
}
