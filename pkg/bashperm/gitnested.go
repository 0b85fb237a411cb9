package bashperm

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/magenta-nvim/magenta/pkg/gitctl"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// Git reads more repository configs than the one of the repository it
// runs in: `git status` and `git diff` run `git status` inside every
// populated gitlink of the index (a submodule, or any nested repository
// a confined script registered), which obeys that repository's own
// config and info/attributes; .git/modules/** hold submodules' git
// directories; commondir and linked worktrees add config.worktree files.
// The shell stops the recursion (localshell's gitOverrides), but a
// .gitmodules entry with `ignore = none` turns it back on for its path,
// so the checker reads all of these too.

// Bounds of the search; beyond them the command asks.
const (
	maxNestedRepos  = 64      // repositories below the top one
	maxNestedDepth  = 8       // submodules of submodules…
	maxModuleDirs   = 2000    // directories visited below .git/modules
	maxGitIndexSize = 1 << 27 // 128 MiB
)

// reach is one search from a top repository for the configs git could
// read from there.
type reach struct {
	r     *run
	seen  map[string]bool // git directories already checked
	repos int
	dirs  int
}

// checkReach returns why a git command in repo must ask because of a
// config file of a nested repository, a submodule or a worktree that it
// can reach, or "". The top repository's own config and config.worktree
// were checked by checkGitRepo.
func (r *run) checkReach(repo *gitRepo) string {
	x := &reach{r: r, seen: map[string]bool{}}
	return x.repo(repo, 0)
}

func (x *reach) repo(repo *gitRepo, depth int) string {
	if x.seen[repo.gitDir] {
		return ""
	}
	x.seen[repo.gitDir] = true
	var files []string
	if depth > 0 {
		files = append(files, filepath.Join(repo.commonDir, "config"), filepath.Join(repo.gitDir, "config.worktree"))
	}
	if repo.gitDir != repo.commonDir {
		// Not read by git today, but whoever planted the redirect
		// chose both directories.
		files = append(files, filepath.Join(repo.gitDir, "config"), filepath.Join(repo.commonDir, "config.worktree"))
	}
	worktrees, _ := filepath.Glob(filepath.Join(repo.commonDir, "worktrees", "*", "config.worktree"))
	files = append(files, worktrees...)
	for _, f := range files {
		if _, reason := x.config(f); reason != "" {
			return reason
		}
	}
	for _, d := range union([]string{filepath.Join(repo.commonDir, "modules")}, []string{filepath.Join(repo.gitDir, "modules")}) {
		if reason := x.modules(d, 0); reason != "" {
			return reason
		}
	}
	if repo.top == "" {
		return "" // bare: no work tree to find nested repositories in
	}
	paths, reason := x.nestedPaths(repo)
	if reason != "" {
		return reason
	}
	for _, p := range paths {
		if reason := x.nested(repo.top, p, depth+1); reason != "" {
			return reason
		}
	}
	return ""
}

// config checks one config file: a key that can run a program asks. A
// missing file is fine; one that cannot be read or parsed asks.
func (x *reach) config(f string) ([]gitctl.Entry, string) {
	data, err := readSmall(f, gitctl.MaxConfigSize)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, ""
	}
	shown := x.show(f)
	if err != nil {
		return nil, fmt.Sprintf("cannot read the git config %s (%v)", shown, err)
	}
	entries, err := gitctl.ParseConfig(data)
	if err != nil {
		return nil, fmt.Sprintf("cannot check the git config %s (%v)", shown, err)
	}
	for _, e := range entries {
		if gitctl.ExecKey(e.Key) {
			return nil, fmt.Sprintf("runs git in a repository that reaches the config %s (of a nested repository, submodule or worktree), which sets %s, which can make git run a program", shown, e.Key)
		}
	}
	return entries, ""
}

// show names a path relative to the workspace when it is inside it.
func (x *reach) show(p string) string {
	if x.r.ws == "/" {
		return p // RepositoryReason: no workspace to be relative to
	}
	if rel, ok := within(x.r.ws, p); ok {
		return rel
	}
	return p
}

// modules checks the config files of the git directories below
// .git/modules (a submodule named a/b lives in modules/a/b; one with
// submodules of its own has them in its modules/).
func (x *reach) modules(dir string, depth int) string {
	ents, err := readDirUnsorted(dir)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return ""
	}
	if err != nil {
		return fmt.Sprintf("cannot list %s to check the submodules' configs (%v)", x.show(dir), err)
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if x.dirs++; x.dirs > maxModuleDirs || depth > 32 {
			return "has too many submodule directories below .git/modules to check their configs"
		}
		d := filepath.Join(dir, e.Name())
		for _, f := range []string{"config", "config.worktree"} {
			if _, reason := x.config(filepath.Join(d, f)); reason != "" {
				return reason
			}
		}
		next := d // a name component: look below it
		if isGitDir(d) {
			worktrees, _ := filepath.Glob(filepath.Join(d, "worktrees", "*", "config.worktree"))
			for _, f := range worktrees {
				if _, reason := x.config(f); reason != "" {
					return reason
				}
			}
			next = filepath.Join(d, "modules") // its own submodules, not its objects
		}
		if reason := x.modules(next, depth+1); reason != "" {
			return reason
		}
	}
	return ""
}

// nestedPaths lists the work-tree paths (relative to repo.top) where
// git could find a nested repository to recurse into: the gitlinks of
// the index and the paths .gitmodules names.
func (x *reach) nestedPaths(repo *gitRepo) ([]string, string) {
	entries, reason := x.config(filepath.Join(repo.commonDir, "config"))
	if reason != "" {
		return nil, reason
	}
	hashLen := 20
	for _, e := range entries {
		if e.Key == "extensions.objectformat" && strings.EqualFold(e.Value, "sha256") {
			hashLen = 32
		}
	}
	links, err := cachedIndexGitlinks(filepath.Join(repo.gitDir, "index"), hashLen)
	if err != nil {
		return nil, fmt.Sprintf("cannot read the git index of %s to find nested repositories (%v)", x.show(repo.gitDir), err)
	}
	paths := append([]string(nil), links...) // the cache's slice stays as it is
	data, err := readSmall(filepath.Join(repo.top, ".gitmodules"), gitctl.MaxConfigSize)
	switch {
	case err == nil:
		entries, err := gitctl.ParseConfig(data)
		if err != nil {
			return nil, fmt.Sprintf("cannot check %s (%v)", x.show(filepath.Join(repo.top, ".gitmodules")), err)
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Key, "submodule.") && strings.HasSuffix(e.Key, ".path") {
				paths = append(paths, e.Value)
			}
		}
	case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return nil, fmt.Sprintf("cannot read %s (%v)", x.show(filepath.Join(repo.top, ".gitmodules")), err)
	}
	return paths, ""
}

// nested checks the repository git would use at top/p, if one is
// there: git takes p/.git (a directory, or a file naming one) when it is
// a git directory.
func (x *reach) nested(top, p string, depth int) string {
	if p == "" || filepath.IsAbs(p) || !filepath.IsLocal(p) {
		return "" // git refuses such a submodule path
	}
	dir := filepath.Join(top, p)
	dotgit := filepath.Join(dir, ".git")
	fi, err := os.Stat(dotgit)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return "" // not populated: git does not look inside
	case err != nil:
		return fmt.Sprintf("cannot inspect the nested repository %s (%v)", x.show(dir), err)
	}
	var gitDir, gitFile string
	switch {
	case fi.Mode().IsRegular():
		gitFile = dotgit
		gitDir, err = readGitFile(dotgit)
	case fi.IsDir():
		gitDir, err = resolve(dotgit)
	default:
		return ""
	}
	if err != nil {
		return fmt.Sprintf("cannot inspect the nested repository %s (%v)", x.show(dir), err)
	}
	if !isGitDir(gitDir) {
		return "" // git does not take it for a repository
	}
	if x.repos++; x.repos > maxNestedRepos || depth > maxNestedDepth {
		return "has too many nested repositories (submodules) to check their configs"
	}
	nested, err := openRepo(gitDir, dir, gitFile)
	if err != nil {
		return fmt.Sprintf("cannot inspect the nested repository %s (%v)", x.show(dir), err)
	}
	for _, d := range []string{nested.gitDir, nested.commonDir} {
		if _, ok := within(x.r.ws, d); !ok {
			return fmt.Sprintf("has a nested repository %s whose git directory %s is outside the workspace", x.show(dir), d)
		}
	}
	return x.repo(nested, depth)
}

// gitlinkCache keeps the gitlinks of each index file read, with the file
// they came from: the same file (device and inode: git replaces the index
// by renaming a new one over it), size and modification time give the
// same answer without reading megabytes again (5 ms for 100 000 entries,
// BenchmarkIndexGitlinks100k).
var gitlinkCache = struct {
	mu sync.Mutex
	m  map[string]gitlinkEntry
}{m: map[string]gitlinkEntry{}}

type gitlinkEntry struct {
	fi      os.FileInfo
	hashLen int
	links   []string
}

const maxGitlinkCache = 256

// cachedIndexGitlinks is indexFileGitlinks through gitlinkCache.
func cachedIndexGitlinks(path string, hashLen int) ([]string, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	gitlinkCache.mu.Lock()
	e, ok := gitlinkCache.m[path]
	gitlinkCache.mu.Unlock()
	if ok && e.hashLen == hashLen && os.SameFile(e.fi, fi) && e.fi.Size() == fi.Size() && e.fi.ModTime().Equal(fi.ModTime()) {
		return e.links, nil
	}
	links, err := indexFileGitlinks(path, hashLen, true)
	if err != nil {
		return nil, err
	}
	gitlinkCache.mu.Lock()
	if len(gitlinkCache.m) >= maxGitlinkCache {
		clear(gitlinkCache.m)
	}
	gitlinkCache.m[path] = gitlinkEntry{fi, hashLen, links}
	gitlinkCache.mu.Unlock()
	return links, nil
}

// indexFileGitlinks returns the paths of the gitlinks (mode 160000) in
// the index file at path; none when there is no index. In split-index
// mode (a "link" extension) the shared index's gitlinks are added when
// follow is set.
func indexFileGitlinks(path string, hashLen int, follow bool) ([]string, error) {
	data, err := readSmall(path, maxGitIndexSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	links, shared, err := indexGitlinks(data, hashLen)
	if err != nil || shared == "" {
		return links, err
	}
	if !follow {
		return nil, errors.New("a shared index links to another")
	}
	more, err := indexFileGitlinks(filepath.Join(filepath.Dir(path), "sharedindex."+shared), hashLen, false)
	return append(links, more...), err
}

var errIndex = errors.New("unexpected index format")

// indexGitlinks parses a git index (versions 2 to 4; Documentation/
// gitformat-index.txt) for the paths of its gitlink entries. shared is
// the hex name of the shared index a split index links to. A gitlink
// without a name (an entry replacing one of the shared index) is an
// error: its path is only in the shared index's order, which this reader
// does not follow.
func indexGitlinks(data []byte, hashLen int) (links []string, shared string, err error) {
	if len(data) < 12+hashLen || string(data[:4]) != "DIRC" {
		return nil, "", errIndex
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, "", fmt.Errorf("index version %d", version)
	}
	count := binary.BigEndian.Uint32(data[8:12])
	end := len(data) - hashLen // the trailing checksum
	off := 12
	var prev []byte
	for range count {
		fixed := 40 + hashLen + 2
		if off+fixed > end {
			return nil, "", errIndex
		}
		mode := binary.BigEndian.Uint32(data[off+24:])
		flags := binary.BigEndian.Uint16(data[off+40+hashLen:])
		if version >= 3 && flags&0x4000 != 0 {
			fixed += 2
		}
		p := off + fixed
		if p > end {
			return nil, "", errIndex
		}
		var name []byte
		if version == 4 {
			strip, n := indexVarint(data[p:end])
			if n == 0 || strip > uint64(len(prev)) {
				return nil, "", errIndex
			}
			p += n
			nul := bytes.IndexByte(data[p:end], 0)
			if nul < 0 {
				return nil, "", errIndex
			}
			name = append(prev[:len(prev)-int(strip):len(prev)-int(strip)], data[p:p+nul]...)
			off = p + nul + 1
		} else {
			nul := bytes.IndexByte(data[p:end], 0)
			if nul < 0 {
				return nil, "", errIndex
			}
			name = data[p : p+nul]
			off += (fixed + nul + 8) &^ 7 // NUL padding to a multiple of 8
		}
		if mode&0o170000 == 0o160000 {
			if len(name) == 0 {
				return nil, "", errors.New("a split index replaces a gitlink")
			}
			links = append(links, string(name))
		}
		prev = name
	}
	for off+8 <= end {
		size := int(binary.BigEndian.Uint32(data[off+4:]))
		if string(data[off:off+4]) == "link" && size >= hashLen && off+8+hashLen <= end {
			shared = hex.EncodeToString(data[off+8 : off+8+hashLen])
		}
		if size < 0 || off+8+size > end {
			break
		}
		off += 8 + size
	}
	return links, shared, nil
}

// indexVarint decodes git's offset varint (index v4 name compression):
// n is the number of bytes read, 0 on a malformed or overflowing value.
func indexVarint(b []byte) (v uint64, n int) {
	for n < len(b) && n < 10 {
		c := b[n]
		n++
		v = v<<7 | uint64(c&0x7f)
		if c&0x80 == 0 {
			return v, n
		}
		v++
	}
	return 0, 0
}
