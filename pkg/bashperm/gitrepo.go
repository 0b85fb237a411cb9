package bashperm

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/magenta-nvim/magenta/pkg/gitctl"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// gitRepo is the repository a git command run from some directory would
// use, found the way git discovers it. Paths are physical (resolved).
type gitRepo struct {
	gitDir    string // the .git directory (a linked worktree's own one)
	commonDir string // where config, refs and objects live
	top       string // the work tree; "" for a bare repository
	// linked: gitDir is a worktree of commonDir's repository that points
	// back to this work tree (created by `git worktree add`).
	linked bool
}

const maxGitFileSize = 4096

// discoverGit walks up from dir (physical) as git does: at each level a
// .git directory that looks like a repository, a .git file naming one
// ("gitdir: …"), or the directory itself being a bare repository. A .git
// directory that does not look like a repository is skipped, as git skips
// it. nil without error: no repository, so git commands fail and read
// nothing.
func discoverGit(dir string) (*gitRepo, error) {
	for d := dir; ; d = filepath.Dir(d) {
		dotgit := filepath.Join(d, ".git")
		fi, err := os.Stat(dotgit)
		switch {
		case err == nil && fi.Mode().IsRegular():
			gitDir, err := readGitFile(dotgit)
			if err != nil {
				return nil, err
			}
			return openRepo(gitDir, d, dotgit)
		case err == nil && fi.IsDir() && isGitDir(dotgit):
			gitDir, err := resolve(dotgit)
			if err != nil {
				return nil, err
			}
			return openRepo(gitDir, d, "")
		case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission):
			return nil, err
		}
		if isGitDir(d) {
			return openRepo(d, "", "")
		}
		if d == "/" {
			return nil, nil
		}
	}
}

// isGitDir is git's test: HEAD, objects/ and refs/ (objects and refs may
// live in the common directory named by a commondir file).
func isGitDir(d string) bool {
	if fi, err := os.Stat(filepath.Join(d, "HEAD")); err != nil || fi.IsDir() {
		return false
	}
	if _, err := os.Stat(filepath.Join(d, "commondir")); err == nil {
		return true
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(d, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// readGitFile returns the resolved directory a .git file names.
func readGitFile(path string) (string, error) {
	data, err := readSmall(path, maxGitFileSize)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	target, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "gitdir: ")
	if !ok || target == "" {
		return "", fmt.Errorf("%s is not a gitdir file", path)
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(path), target)
	}
	return resolve(target)
}

func readSmall(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s is too large to check", path)
	}
	var b bytes.Buffer
	b.Grow(int(fi.Size()) + bytes.MinRead) // one allocation for a git index of megabytes
	_, err = b.ReadFrom(f)
	return b.Bytes(), err
}

// openRepo fills in the common directory and whether a linked worktree's
// git directory points back at dotgitFile (the .git file that named it).
func openRepo(gitDir, workTree, dotgitFile string) (*gitRepo, error) {
	repo := &gitRepo{gitDir: gitDir, commonDir: gitDir}
	if workTree != "" {
		top, err := resolve(workTree)
		if err != nil {
			return nil, err
		}
		repo.top = top
	}
	if data, err := readSmall(filepath.Join(gitDir, "commondir"), maxGitFileSize); err == nil {
		common := strings.TrimSpace(string(data))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		if repo.commonDir, err = resolve(common); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if dotgitFile != "" && filepath.Dir(gitDir) == filepath.Join(repo.commonDir, "worktrees") {
		if back, err := readSmall(filepath.Join(gitDir, "gitdir"), maxGitFileSize); err == nil {
			want, err1 := resolve(dotgitFile)
			got, err2 := resolve(strings.TrimSpace(string(back)))
			repo.linked = err1 == nil && err2 == nil && got == want
		}
	}
	return repo, nil
}

// checkGitRepo asks when a git command run from cwd would use a
// repository that reaches outside the workspace (a .git file or
// core.worktree pointing elsewhere, a repository above the workspace) or
// whose own config names a program git could run. The user's global and
// system config are theirs and trusted; only the repository's files,
// which anyone who wrote the workspace could have planted, are read.
func (r *run) checkGitRepo(cwd string) (*gitRepo, string) {
	phys, err := resolve(cwd)
	if err != nil {
		return nil, fmt.Sprintf("cannot resolve %s to find its git repository (%v)", cwd, err)
	}
	repo, err := discoverGit(phys)
	if err != nil {
		return nil, fmt.Sprintf("cannot inspect the git repository: %v", err)
	}
	if repo == nil {
		return nil, ""
	}
	inside := func(p string) bool { _, ok := within(r.ws, p); return ok }
	if repo.top != "" && !inside(repo.top) {
		return nil, fmt.Sprintf("runs git in the repository at %s, which is outside the workspace", repo.top)
	}
	if !repo.linked && (!inside(repo.gitDir) || !inside(repo.commonDir)) {
		dir := repo.gitDir
		if inside(dir) {
			dir = repo.commonDir
		}
		return nil, fmt.Sprintf("runs git with the git directory %s, which is outside the workspace", dir)
	}
	files := []string{filepath.Join(repo.commonDir, "config"), filepath.Join(repo.gitDir, "config.worktree")}
	for _, f := range files {
		data, err := readSmall(f, gitctl.MaxConfigSize)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Sprintf("cannot read the repository's config %s (%v)", f, err)
		}
		entries, err := gitctl.ParseConfig(data)
		if err != nil {
			return nil, fmt.Sprintf("cannot check the repository's config %s (%v)", f, err)
		}
		for _, e := range entries {
			if gitctl.ExecKey(e.Key) {
				return nil, fmt.Sprintf("runs git in a repository whose own config (%s) sets %s, which can make git run a program", f, e.Key)
			}
			if e.Key != "core.worktree" {
				continue
			}
			// Submodules set it (to their directory); elsewhere it can
			// point git's work tree anywhere.
			wt := e.Value
			if !filepath.IsAbs(wt) {
				wt = filepath.Join(repo.gitDir, wt)
			}
			if repo.top, err = resolve(wt); e.Value == "" || err != nil || !inside(repo.top) {
				return nil, fmt.Sprintf("runs git in a repository whose config (%s) sets its work tree to %s, outside the workspace", f, e.Value)
			}
		}
	}
	if reason := r.checkReach(repo); reason != "" {
		return nil, reason
	}
	return repo, ""
}

// gitRepoReason is why an allowed git command (argv after the global
// options) must still ask because of the repository it would run in:
// see checkGitRepo and gitSecretReason.
func (r *run) gitRepoReason(argv []field, cwd string) string {
	repo, reason := r.checkGitRepo(cwd)
	if reason != "" {
		return reason
	}
	if reason := submoduleDiff(argv); reason != "" {
		return reason
	}
	return r.gitSecretReason(repo, argv, cwd)
}

// submoduleDiff: --submodule=diff makes git diff, log and show run `git
// diff` inside each nested repository whose gitlink changed between two
// commits, also for paths that are gitlinks only in history, where
// checkReach does not look (the shell's diff.submodule=short keeps the
// config from asking for it).
func submoduleDiff(argv []field) string {
	for _, a := range argv[1:] {
		if a.s == "--" {
			break
		}
		name, value, ok := strings.Cut(a.s, "=")
		if ok && value == "diff" && len(name) > 5 && strings.HasPrefix("--submodule", name) {
			return fmt.Sprintf("uses `%s`, which runs git inside nested repositories, whose configs the check does not read", a.s)
		}
	}
	return ""
}
