package bashperm

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
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
		full := []string{"--no-optional-locks", "-c", "log.showSignature=false", "-c", "core.fsmonitor=false",
			"--git-dir=" + repo.gitDir}
		dir := repo.gitDir
		if repo.top != "" {
			full, dir = append(full, "--work-tree="+repo.top), repo.top
		}
		cmd := exec.CommandContext(ctx, "git", append(full, args...)...)
		cmd.Dir = dir
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

// gitPrintsContent reports whether a git command (argv after the global
// options: git SUB …) may print file contents: diff and show unless they
// ask only for names or statistics, log and stash list with a patch,
// status -v (the staged diff).
func gitPrintsContent(argv []field) bool {
	if len(argv) < 2 {
		return false
	}
	sub := argv[1].s
	patch, noPatch, verbose := false, false, false
	for _, a := range argv[2:] {
		w := a.s
		if w == "--" {
			break
		}
		switch {
		case strings.HasPrefix(w, "--"):
			name, _, _ := strings.Cut(w, "=")
			for _, f := range []string{"--patch", "--unified", "--cc", "--dd", "--word-diff", "--color-words", "--diff-merges",
				"--remerge-diff", "--function-context", "--binary", "--full-diff"} {
				if strings.HasPrefix(f, name) && len(name) > 2 || strings.HasPrefix(name, f) {
					patch = true
				}
			}
			for _, f := range []string{"--stat", "--numstat", "--shortstat", "--name-only", "--name-status", "--dirstat",
				"--summary", "--quiet", "--no-patch", "--compact-summary", "--raw", "--check"} {
				if strings.HasPrefix(name, f) {
					noPatch = true
				}
			}
			verbose = verbose || (len(name) > 2 && strings.HasPrefix("--verbose", name))
		case strings.HasPrefix(w, "-") && len(w) > 1:
			if strings.ContainsAny(w[1:], "pucmLWU") {
				patch = true
			}
			verbose = verbose || strings.ContainsRune(w[1:], 'v')
			if w == "-s" {
				noPatch = true
			}
		}
	}
	switch sub {
	case "diff", "show":
		return patch || !noPatch
	case "log", "stash":
		return patch
	case "status":
		return verbose
	}
	return false
}

// onlyBlobs reports whether every operand of git show or diff is
// REV:PATH, which shows that one file (its name was checked) or lists a
// tree, and no commit's patch.
func onlyBlobs(argv []field) bool {
	if len(argv) < 3 || (argv[1].s != "show" && argv[1].s != "diff") {
		return false
	}
	n := 0
	for _, a := range argv[2:] {
		if strings.HasPrefix(a.s, "-") {
			continue
		}
		if i := strings.IndexByte(a.s, ':'); i <= 0 {
			return false
		}
		n++
	}
	return n > 0
}

// gitSecretReason asks when a git command that prints contents could
// reach a secret the repository tracks or once tracked: it names no
// pathspec after "--", or one that covers such a path.
func (r *run) gitSecretReason(repo *gitRepo, argv []field, cwd string) string {
	if repo == nil || !gitPrintsContent(argv) {
		return ""
	}
	paths, err := secretHistory.get(repo)
	if err != nil {
		return fmt.Sprintf("prints file contents with git, and the repository's history could not be checked for secrets (%v)", err)
	}
	if len(paths) == 0 {
		return ""
	}
	dd := slices.IndexFunc(argv, func(f field) bool { return f.s == "--" })
	if dd < 0 && onlyBlobs(argv) {
		return ""
	}
	if dd < 0 {
		return fmt.Sprintf("prints file contents with git from a repository that tracks or once tracked a secret (%s); name the paths to show after `--`", paths[0])
	}
	phys, err := resolve(cwd)
	if err != nil || repo.top == "" {
		return "prints file contents with git from a repository that tracks or once tracked a secret"
	}
	for _, a := range argv[dd+1:] {
		spec := a.s
		if a.glob || strings.HasPrefix(spec, ":") || strings.ContainsAny(spec, "*?[\\") {
			return fmt.Sprintf("prints file contents with git for the pathspec %s, which may cover a secret the repository tracks or once tracked (%s)", spec, paths[0])
		}
		rel, err := filepath.Rel(repo.top, filepath.Join(phys, spec))
		if err != nil {
			return "cannot place the pathspec " + spec + " in the repository"
		}
		rel = strings.ToLower(filepath.ToSlash(rel))
		for _, p := range paths {
			lp := strings.ToLower(p)
			if rel == "." || lp == rel || strings.HasPrefix(lp, rel+"/") {
				return fmt.Sprintf("prints file contents with git for %s, which covers %s, a secret the repository tracks or once tracked", spec, p)
			}
		}
	}
	return ""
}
