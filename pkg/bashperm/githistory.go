package bashperm

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/magenta-nvim/magenta/pkg/secrets"
)

const (
	historyTimeout  = 5 * time.Second
	maxHistoryBytes = 256 << 20
	maxStampEntries = 5000
	maxSecretPaths  = 100
)

// trackedSecrets are the secret paths (repository-relative, slashes) that
// a repository tracks in its index or that any commit reachable from a
// ref or a reflog entry ever held. Finding them costs a `git log` over the
// whole history, so results are cached per repository and reused while
// the refs, reflogs, HEAD and index are unchanged (their stamp).
type trackedSecrets struct {
	mu sync.Mutex
	m  map[string]historyEntry // by common dir + git dir
}

type historyEntry struct {
	stamp string
	paths []string
	err   error
}

var secretHistory = &trackedSecrets{m: map[string]historyEntry{}}

func (t *trackedSecrets) get(repo *gitRepo) ([]string, error) {
	key := repo.commonDir + "\x00" + repo.gitDir
	stamp := historyStamp(repo)
	t.mu.Lock()
	e, ok := t.m[key]
	t.mu.Unlock()
	if ok && e.stamp == stamp && stamp != "" {
		return e.paths, e.err
	}
	paths, err := listTrackedSecrets(repo)
	t.mu.Lock()
	t.m[key] = historyEntry{stamp, paths, err}
	t.mu.Unlock()
	return paths, err
}

// historyStamp is the size and modification time of everything that
// changes when a commit, ref, reflog entry or staged file appears:
// HEAD, the index, packed-refs, the reflogs of HEAD and every directory
// under refs/ and logs/ (updating a loose ref renames a file into its
// directory). "" when it cannot be taken (then nothing is cached).
func historyStamp(repo *gitRepo) string {
	var b strings.Builder
	add := func(p string) {
		if fi, err := os.Stat(p); err == nil {
			b.WriteString(p)
			b.WriteByte(' ')
			b.WriteString(strconv.FormatInt(fi.ModTime().UnixNano(), 10))
			b.WriteByte(' ')
			b.WriteString(strconv.FormatInt(fi.Size(), 10))
			b.WriteByte('\n')
		}
	}
	for _, p := range []string{"HEAD", "index", "logs/HEAD"} {
		add(filepath.Join(repo.gitDir, p))
	}
	add(filepath.Join(repo.commonDir, "packed-refs"))
	entries := 0
	for _, root := range []string{"refs", "logs/refs"} {
		err := filepath.WalkDir(filepath.Join(repo.commonDir, root), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if entries++; entries > maxStampEntries {
				return fs.SkipAll
			}
			if d.IsDir() || root == "logs/refs" { // a reflog grows in place
				add(p)
			}
			return nil
		})
		if entries > maxStampEntries || (err != nil && !os.IsNotExist(err)) {
			return ""
		}
	}
	return b.String()
}

// listTrackedSecrets runs git in the repository: ls-files for the index
// and log over every ref and reflog entry for the history. Both only list
// names; nothing in them runs a configured program (the repository's own
// config was checked before, and log.showSignature is forced off).
func listTrackedSecrets(repo *gitRepo) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), historyTimeout)
	defer cancel()
	var found []string
	for _, args := range [][]string{
		{"ls-files", "-z"},
		{"log", "--all", "--reflog", "--format=", "--name-only", "--no-renames", "-z"},
	} {
		cmd := repoGit(ctx, repo, args...)
		var out, errb limitedBuffer
		out.limit, errb.limit = maxHistoryBytes, 4096
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			if out.over {
				return nil, fmt.Errorf("the history is too large to check")
			}
			return nil, fmt.Errorf("git %s: %v %s", args[0], err, strings.TrimSpace(errb.String()))
		}
		for _, name := range bytes.Split(out.Bytes(), []byte{0}) {
			if len(name) == 0 {
				continue
			}
			if s := string(name); secrets.InPath(s) != "" && !slices.Contains(found, s) {
				found = append(found, s)
				if len(found) >= maxSecretPaths {
					return found, nil
				}
			}
		}
	}
	return found, nil
}

// repoGit is a git command run in the repository with nothing a config
// file could add to it: the repository's own config was checked before
// (checkGitRepo), and signature display and fsmonitor are forced off.
func repoGit(ctx context.Context, repo *gitRepo, args ...string) *exec.Cmd {
	full := []string{"--no-optional-locks", "-c", "log.showSignature=false", "-c", "core.fsmonitor=false",
		"--git-dir=" + repo.gitDir}
	dir := repo.gitDir
	if repo.top != "" {
		full, dir = append(full, "--work-tree="+repo.top), repo.top
	}
	cmd := exec.CommandContext(ctx, "git", append(full, args...)...)
	cmd.Dir = dir
	return cmd
}

// limitedBuffer keeps at most limit bytes and then fails the write, which
// ends the command.
type limitedBuffer struct {
	bytes.Buffer
	limit int
	over  bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.limit {
		b.over = true
		return 0, fmt.Errorf("output over %d bytes", b.limit)
	}
	return b.Buffer.Write(p)
}

// gitSecretReason asks when a git command (argv after the global
// options) could print a secret: a credential from the configuration it
// reads (gitcreds.go), or, in a repository that tracks or once tracked a
// secret, files from its history (gitexpose.go says what each command
// can show).
func (r *run) gitSecretReason(repo *gitRepo, argv []field, cwd string) string {
	if reason := r.gitCredentialReason(repo, argv, cwd); reason != "" {
		return reason
	}
	return r.gitHistoryReason(repo, gitExposure(argv), cwd)
}

// gitHistoryReason asks when what a git command can show of the object
// store (x) could hold a secret the repository tracks or once tracked.
// A repository without one asks nothing.
func (r *run) gitHistoryReason(repo *gitRepo, x exposure, cwd string) string {
	if repo == nil || x.level == exposeNothing {
		return ""
	}
	what := x.why
	if x.level == exposeChecked {
		what = "prints file contents with git"
	}
	paths, err := secretHistory.get(repo)
	if err != nil {
		return fmt.Sprintf("%s, and the repository's history could not be checked for secrets (%v)", what, err)
	}
	if len(paths) == 0 {
		return ""
	}
	if x.level == exposeAny {
		return fmt.Sprintf("%s, and the repository tracks or once tracked a secret (%s)", what, paths[0])
	}
	phys, err := resolve(cwd)
	if (len(x.trees) > 0 || x.limited) && (err != nil || repo.top == "") {
		return "prints file contents with git from a repository that tracks or once tracked a secret, and paths cannot be placed in it"
	}
	for _, t := range x.trees {
		p, _ := objectPath(t.s)
		rel := path.Clean("/" + p)[1:]
		if p == "." || p == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") {
			rel, err = filepath.Rel(repo.top, filepath.Join(phys, p))
			if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
				return "cannot place " + t.s + " in the repository"
			}
		}
		if s := coveredSecret(filepath.ToSlash(rel), paths); s != "" {
			return fmt.Sprintf("prints file contents with git for %s, which covers %s, a secret the repository tracks or once tracked", t.s, s)
		}
	}
	if x.limited {
		if len(x.specs) == 0 {
			return fmt.Sprintf("prints file contents with git from a repository that tracks or once tracked a secret (%s); name the paths to show after `--`", paths[0])
		}
		for _, a := range x.specs {
			spec := a.s
			if a.glob || strings.HasPrefix(spec, ":") || strings.ContainsAny(spec, "*?[\\") {
				return fmt.Sprintf("prints file contents with git for the pathspec %s, which may cover a secret the repository tracks or once tracked (%s)", spec, paths[0])
			}
			rel, err := filepath.Rel(repo.top, filepath.Join(phys, spec))
			if err != nil {
				return "cannot place the pathspec " + spec + " in the repository"
			}
			if s := coveredSecret(filepath.ToSlash(rel), paths); s != "" {
				return fmt.Sprintf("prints file contents with git for %s, which covers %s, a secret the repository tracks or once tracked", spec, s)
			}
		}
	}
	if revs, ok := commitsOnly(repo, x.commits); !ok {
		return fmt.Sprintf("shows %s with git, which may name an object other than a commit (a secret's blob), in a repository that tracks or once tracked a secret (%s)", revs, paths[0])
	}
	return ""
}

// coveredSecret returns the first of the secret paths at or below rel
// (repository-relative, slashes; "." the whole repository), "" for none.
func coveredSecret(rel string, paths []string) string {
	rel = strings.ToLower(rel)
	for _, p := range paths {
		lp := strings.ToLower(p)
		if rel == "." || rel == "" || lp == rel || strings.HasPrefix(lp, rel+"/") {
			return p
		}
	}
	return ""
}

// commitsOnly reports whether every revision operand names commits (or
// trees): spelled so (HEAD~1, main^{tree}, :/fix), or resolved by git
// rev-parse REV^{commit}, which fails for a blob, a tag of one, or
// anything else. revs lists the operands for the reason.
func commitsOnly(repo *gitRepo, ops []field) (revs string, ok bool) {
	var resolveArgs, shown []string
	for _, op := range ops {
		shown = append(shown, op.s)
		if op.glob {
			return "a revision known only at run time", false
		}
		for _, end := range revisionEnds(op.s) {
			if _, isPath := objectPath(end); isPath || !spelledCommit(end) { // HEAD:x~1 is a file named x~1
				resolveArgs = append(resolveArgs, end+"^{commit}")
			}
		}
	}
	revs = strings.Join(shown, " ")
	if len(resolveArgs) == 0 {
		return revs, true
	}
	ctx, cancel := context.WithTimeout(context.Background(), historyTimeout)
	defer cancel()
	// The trailing "--" makes every word a revision, and one that does
	// not resolve (or is no commit) fails the command.
	cmd := repoGit(ctx, repo, append(append([]string{"rev-parse", "--quiet"}, resolveArgs...), "--")...)
	return revs, cmd.Run() == nil
}
