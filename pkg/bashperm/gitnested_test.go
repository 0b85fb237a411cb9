package bashperm

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The index reader finds the gitlinks git itself lists, in every index
// version, with extended flags, in split-index mode and with SHA-256.
func TestIndexGitlinks(t *testing.T) {
	genv := gitEnv(t)
	for _, tc := range []struct {
		name  string
		init  []string
		setup [][]string
	}{
		{"v2", nil, [][]string{{"update-index", "--index-version", "2"}}},
		{"v3 extended flags", nil, [][]string{{"update-index", "--index-version", "3"}, {"update-index", "--skip-worktree", "a.txt"}}},
		{"v4", nil, [][]string{{"update-index", "--index-version", "4"}}},
		{"split", nil, [][]string{{"update-index", "--split-index"}, {"update-index", "--add", "--cacheinfo", "160000,1111111111111111111111111111111111111111,later"}}},
		{"sha256", []string{"--object-format=sha256"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			git(t, genv, ws, append([]string{"init", "-q"}, tc.init...)...)
			zero := "1111111111111111111111111111111111111111"
			hashLen := 20
			if len(tc.init) > 0 {
				zero += "111111111111111111111111"
				hashLen = 32
			}
			write(t, filepath.Join(ws, "a.txt"), "a\n")
			write(t, filepath.Join(ws, "deep/er/file.txt"), "b\n")
			git(t, genv, ws, "add", ".")
			for _, p := range []string{"lib", "deep/er/mod", "deep/er/mod2", "z"} {
				git(t, genv, ws, "update-index", "--add", "--cacheinfo", "160000,"+zero+","+p)
			}
			for _, args := range tc.setup {
				git(t, genv, ws, args...)
			}
			var want []string
			for _, line := range strings.Split(git(t, genv, ws, "ls-files", "-s"), "\n") {
				if strings.HasPrefix(line, "160000 ") {
					_, p, _ := strings.Cut(line, "\t")
					want = append(want, p)
				}
			}
			got, err := indexFileGitlinks(filepath.Join(ws, ".git", "index"), hashLen, true)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			got = slices.Compact(got)
			if !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
	for _, bad := range []string{"", "DIRC", "DIRC\x00\x00\x00\x09\x00\x00\x00\x00" + strings.Repeat("x", 20),
		"DIRC\x00\x00\x00\x02\x00\x00\x00\x05" + strings.Repeat("x", 80)} {
		if _, _, err := indexGitlinks([]byte(bad), 20); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// plantNested builds the hostile repositories a confined script can leave
// in a workspace that is a repository: a nested repository whose own
// config names a filter that creates marker and whose info/attributes
// applies it, with a changed file git has to clean again.
func plantNested(t *testing.T, genv []string, ws, dir, marker string) {
	t.Helper()
	nested := filepath.Join(ws, dir)
	write(t, filepath.Join(nested, "f.txt"), "one\n")
	git(t, genv, nested, "init", "-q")
	git(t, genv, nested, "add", ".")
	git(t, genv, nested, "commit", "-qm", "nested")
	git(t, genv, nested, "config", "filter.x.clean", "touch "+marker+"; cat")
	write(t, filepath.Join(nested, ".git", "info", "attributes"), "* filter=x\n")
	write(t, filepath.Join(nested, "f.txt"), "two\n")
	past := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(nested, "f.txt"), past, past); err != nil {
		t.Fatal(err)
	}
}

func gitlink(t *testing.T, genv []string, ws, dir string) {
	t.Helper()
	head := strings.TrimSpace(git(t, genv, filepath.Join(ws, dir), "rev-parse", "HEAD"))
	git(t, genv, ws, "update-index", "--add", "--cacheinfo", "160000,"+head+","+dir)
}

// Findings 1–2: an allowed git command in the top repository would have
// recursed into a planted nested repository and run its filter
// unconfined. Each world is shown hostile with plain git where git
// recurses by itself; the checker asks in all of them, naming the config.
func TestPlantedNestedRepositoriesAsk(t *testing.T) {
	c := mustNew(t, Config{})
	for _, tc := range []struct {
		name    string
		hostile bool // plain `git status` runs the planted filter
		setup   func(t *testing.T, genv []string, ws, marker string)
		reason  string
	}{
		{"gitlink in the index", true, func(t *testing.T, genv []string, ws, marker string) {
			plantNested(t, genv, ws, "lib", marker)
			gitlink(t, genv, ws, "lib")
		}, "lib/.git/config"},
		{"submodule git dir in .git/modules", true, func(t *testing.T, genv []string, ws, marker string) {
			plantNested(t, genv, ws, "lib", marker)
			if err := os.MkdirAll(filepath.Join(ws, ".git", "modules"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(filepath.Join(ws, "lib", ".git"), filepath.Join(ws, ".git", "modules", "lib")); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(ws, "lib", ".git"), "gitdir: ../.git/modules/lib\n")
			git(t, genv, ws, "--git-dir=.git/modules/lib", "config", "core.worktree", "../../../lib")
			gitlink(t, genv, ws, "lib")
		}, ".git/modules/lib/config"},
		{"submodule of a submodule", true, func(t *testing.T, genv []string, ws, marker string) {
			write(t, filepath.Join(ws, "outer", "x.txt"), "x\n")
			git(t, genv, filepath.Join(ws, "outer"), "init", "-q")
			plantNested(t, genv, filepath.Join(ws, "outer"), "inner", marker)
			gitlink(t, genv, filepath.Join(ws, "outer"), "inner")
			git(t, genv, filepath.Join(ws, "outer"), "add", "x.txt")
			git(t, genv, filepath.Join(ws, "outer"), "commit", "-qm", "outer")
			gitlink(t, genv, ws, "outer")
		}, "outer/inner/.git/config"},
		{"only in .gitmodules", false, func(t *testing.T, genv []string, ws, marker string) {
			plantNested(t, genv, ws, "lib", marker)
			write(t, filepath.Join(ws, ".gitmodules"), "[submodule \"lib\"]\n\tpath = lib\n\turl = ./lib\n\tignore = none\n")
		}, "lib/.git/config"},
		{"only in .git/modules", false, func(t *testing.T, genv []string, ws, marker string) {
			write(t, filepath.Join(ws, ".git", "modules", "a", "b", "config"), "[core]\n\tfsmonitor = touch "+marker+"\n")
		}, ".git/modules/a/b/config"},
		{"commondir", false, func(t *testing.T, genv []string, ws, marker string) {
			common := filepath.Join(ws, "common")
			git(t, genv, ws, "init", "-q", "--bare", common)
			git(t, genv, common, "config", "core.fsmonitor", "touch "+marker)
			write(t, filepath.Join(ws, ".git", "commondir"), "../common\n")
		}, "common/config"},
		{"another worktree's config.worktree", false, func(t *testing.T, genv []string, ws, marker string) {
			git(t, genv, ws, "config", "extensions.worktreeConfig", "true")
			git(t, genv, ws, "worktree", "add", "-q", filepath.Join(t.TempDir(), "wt"))
			ents, err := filepath.Glob(filepath.Join(ws, ".git", "worktrees", "*"))
			if err != nil || len(ents) != 1 {
				t.Fatalf("worktrees: %v %v", ents, err)
			}
			write(t, filepath.Join(ents[0], "config.worktree"), "[filter \"x\"]\n\tclean = touch "+marker+"\n")
		}, "config.worktree"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, genv := gitWorkspace(t)
			ws := env.Workspace
			marker := filepath.Join(t.TempDir(), "MARK")
			tc.setup(t, genv, ws, marker)
			if tc.hostile {
				plain := exec.Command("git", "status")
				plain.Dir, plain.Env = ws, genv
				if out, err := plain.CombinedOutput(); err != nil {
					t.Fatalf("git status: %v\n%s", err, out)
				}
				if _, err := os.Stat(marker); err != nil {
					t.Fatalf("the planted world is not hostile: plain git status did not run the filter (%v)", err)
				}
			}
			for _, cmd := range plantedCommands {
				v := c.Check(cmd, env)
				if v.Allow {
					t.Errorf("%q allowed", cmd)
				} else if !strings.Contains(v.Reason, tc.reason) {
					t.Errorf("%q: reason %q does not name %s", cmd, v.Reason, tc.reason)
				}
			}
		})
	}
}

// What git does not recurse into, or what runs nothing, stays allowed: a
// clean submodule, and an untracked nested repository (not a gitlink, not
// in .gitmodules: git status lists it as untracked without looking in).
func TestHarmlessNestedRepositoriesAreAllowed(t *testing.T) {
	c := mustNew(t, Config{})
	env, genv := gitWorkspace(t)
	ws := env.Workspace
	write(t, filepath.Join(ws, "clean", "x.txt"), "x\n")
	git(t, genv, filepath.Join(ws, "clean"), "init", "-q")
	git(t, genv, filepath.Join(ws, "clean"), "add", ".")
	git(t, genv, filepath.Join(ws, "clean"), "commit", "-qm", "x")
	gitlink(t, genv, ws, "clean")
	write(t, filepath.Join(ws, ".gitmodules"), "[submodule \"clean\"]\n\tpath = clean\n\turl = ./clean\n[submodule \"gone\"]\n\tpath = gone\n\turl = ./gone\n")
	marker := filepath.Join(t.TempDir(), "MARK")
	plantNested(t, genv, ws, "untracked", marker)
	for _, cmd := range plantedCommands {
		if v := c.Check(cmd, env); !v.Allow {
			t.Errorf("%q asks: %s", cmd, v.Reason)
		}
	}
	plain := exec.Command("git", "status")
	plain.Dir, plain.Env = ws, genv
	if out, err := plain.CombinedOutput(); err != nil {
		t.Fatalf("git status: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("git status ran the filter of an untracked nested repository: the checker must look there too")
	}
	// A nested repository whose git directory is outside the workspace
	// asks: its config is not the workspace's to vouch for.
	outside := t.TempDir()
	git(t, genv, outside, "init", "-q")
	write(t, filepath.Join(ws, "ext", ".git"), "gitdir: "+filepath.Join(outside, ".git")+"\n")
	gitlink(t, genv, ws, "clean") // unchanged
	git(t, genv, ws, "update-index", "--add", "--cacheinfo", "160000,1111111111111111111111111111111111111111,ext")
	if v := c.Check("git status", env); v.Allow || !strings.Contains(v.Reason, "outside the workspace") {
		t.Errorf("nested git dir outside: %+v", v)
	}
}

// --submodule=diff runs git diff inside nested repositories even for
// gitlinks that are only in history, which the checker does not read.
func TestSubmoduleDiffFlagAsks(t *testing.T) {
	env, _ := gitWorkspace(t)
	runCases(t, mustNew(t, Config{}), env, []tcase{
		{"git diff --submodule=diff HEAD~0", false, "--submodule=diff", ""},
		{"git log -p --submod=diff", false, "nested repositories", ""},
		{"git diff --submodule=log", true, "", ""},
		{"git diff --submodule", true, "", ""},
		{"git log -- --submodule=diff", true, "", ""},
	})
}

// BenchmarkIndexGitlinks100k reads a 100 000-entry index (a large
// monorepo's, 8.8 MB) for its gitlinks, without the cache.
func BenchmarkIndexGitlinks100k(b *testing.B) {
	genv := gitEnv(b)
	ws := b.TempDir()
	git(b, genv, ws, "init", "-q")
	var list strings.Builder
	for i := range 100000 {
		fmt.Fprintf(&list, "100644 e69de29bb2d1d6434b8b29ae775a8c2d48c6c391\tdir%03d/sub/file%06d.go\n", i/1000, i)
	}
	cmd := exec.Command("git", "update-index", "--add", "--index-info")
	cmd.Dir, cmd.Env, cmd.Stdin = ws, genv, strings.NewReader(list.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	index := filepath.Join(ws, ".git", "index")
	for b.Loop() {
		if _, err := indexFileGitlinks(index, 20, true); err != nil {
			b.Fatal(err)
		}
	}
}
