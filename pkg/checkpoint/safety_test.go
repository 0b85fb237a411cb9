package checkpoint

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// The workspace's own repository — index, HEAD, refs, config, stash,
// hooks, everything under .git — is byte-identical after snapshots, a
// plan and a restore.
func TestUserRepositoryUntouched(t *testing.T) {
	ws := t.TempDir()
	userGit(t, ws, "init", "-q")
	write(t, ws, "a.txt", "v1\n")
	write(t, ws, "b.txt", "b\n")
	userGit(t, ws, "add", "-A")
	userGit(t, ws, "commit", "-qm", "one")
	write(t, ws, "a.txt", "stashed\n")
	userGit(t, ws, "stash", "-q")
	write(t, ws, "b.txt", "staged\n")
	userGit(t, ws, "add", "b.txt")
	write(t, ws, "c.txt", "untracked\n")
	dotGit := filepath.Join(ws, ".git")
	before := hashTree(t, dotGit)

	s := openStore(t, ws, nil)
	cp := snap(t, s, "g", "l", nil)
	write(t, ws, "a.txt", "agent\n")
	os.Remove(filepath.Join(ws, "c.txt"))
	snap(t, s, "g", "l2", nil)
	restore(t, s, cp.ID)
	if read(t, ws, "a.txt") != "v1\n" || read(t, ws, "c.txt") != "untracked\n" {
		t.Fatal("not restored")
	}
	if after := hashTree(t, dotGit); after != before {
		t.Fatal("the workspace's .git changed")
	}
	if _, ok := treeOf(t, s, cp.ID)[".git/HEAD"]; ok {
		t.Fatal(".git captured")
	}
}

// A planted .gitattributes selecting a filter, diff driver and eol
// conversion, with the workspace's .git/config defining them as commands
// (and an fsmonitor, hooks, a .gitmodules, a .git file pointing
// elsewhere): nothing runs, and bytes are stored and restored verbatim.
func TestHostileWorkspace(t *testing.T) {
	ws := t.TempDir()
	marker := filepath.Join(t.TempDir(), "marker")
	userGit(t, ws, "init", "-q")
	for _, kv := range [][2]string{
		{"filter.evil.clean", "touch " + marker}, {"filter.evil.smudge", "touch " + marker},
		{"filter.evil.process", "touch " + marker}, {"filter.evil.required", "true"},
		{"diff.evil.textconv", "touch " + marker}, {"diff.evil.command", "touch " + marker},
		{"core.fsmonitor", "touch " + marker}, {"core.hooksPath", "hooks"},
		{"core.autocrlf", "true"}, {"include.path", "/dev/null"},
	} {
		userGit(t, ws, "config", kv[0], kv[1])
	}
	write(t, ws, "hooks/post-index-change", "#!/bin/sh\ntouch "+marker+"\n")
	os.Chmod(filepath.Join(ws, "hooks/post-index-change"), 0o755)
	write(t, ws, ".gitattributes", "* filter=evil diff=evil\n*.txt text eol=crlf\n")
	write(t, ws, ".gitmodules", "[submodule \"m\"]\n\tpath = m\n\turl = ../elsewhere\n")
	elsewhere := t.TempDir()
	userGit(t, elsewhere, "init", "-q")
	write(t, ws, "m/.git", "gitdir: "+filepath.Join(elsewhere, ".git")+"\n")
	write(t, ws, "m/f", "f\n")
	write(t, ws, "lf.txt", "a\nb\n")
	write(t, ws, "crlf.txt", "a\r\nb\r\n")
	elseBefore := hashTree(t, elsewhere)

	s := openStore(t, ws, nil)
	cp := snap(t, s, "g", "l", nil)
	tree := treeOf(t, s, cp.ID)
	if tree["lf.txt"] != "a\nb\n" || tree["crlf.txt"] != "a\r\nb\r\n" {
		t.Fatalf("content converted: %q", tree)
	}
	if skipped(cp)["m/"] != reasonNested {
		t.Fatalf("skipped %q", cp.Skipped)
	}
	write(t, ws, "lf.txt", "changed\n")
	write(t, ws, "crlf.txt", "changed\n")
	changesOf(t, s, cp.ID, nil)
	restore(t, s, cp.ID)
	if read(t, ws, "lf.txt") != "a\nb\n" || read(t, ws, "crlf.txt") != "a\r\nb\r\n" {
		t.Fatal("restore converted content")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a workspace-defined command ran")
	}
	if hashTree(t, elsewhere) != elseBefore {
		t.Fatal("the repository a .git file points to changed")
	}
}

// GIT_* variables inherited from the user's environment do not redirect
// or reconfigure the store.
func TestInheritedGitEnvironment(t *testing.T) {
	other := t.TempDir()
	userGit(t, other, "init", "-q")
	write(t, other, "o.txt", "other\n")
	userGit(t, other, "add", "-A")
	otherBefore := hashTree(t, other)
	marker := filepath.Join(t.TempDir(), "marker")
	t.Setenv("GIT_DIR", filepath.Join(other, ".git"))
	t.Setenv("GIT_WORK_TREE", other)
	t.Setenv("GIT_INDEX_FILE", filepath.Join(other, ".git", "index"))
	t.Setenv("GIT_OBJECT_DIRECTORY", filepath.Join(other, ".git", "objects"))
	t.Setenv("GIT_CONFIG_PARAMETERS", "'core.fsmonitor'='touch "+marker+"'")
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "core.hooksPath")
	t.Setenv("GIT_CONFIG_VALUE_0", other)

	ws := t.TempDir()
	write(t, ws, "mine.txt", "mine\n")
	s := openStore(t, ws, nil)
	cp := snap(t, s, "g", "l", nil)
	if got := treeOf(t, s, cp.ID); !reflect.DeepEqual(got, map[string]string{"mine.txt": "mine\n"}) {
		t.Fatalf("tree %q", got)
	}
	if hashTree(t, other) != otherBefore {
		t.Fatal("the repository named by GIT_DIR changed")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("inherited config ran a command")
	}
}

// The store directory is 0700 and nothing in it is readable by others.
func TestStoreMode(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, "a.txt", "secret\n")
	s := openStore(t, ws, nil)
	snap(t, s, "g", "l", map[string][]byte{"a.txt": []byte("buffer secret\n")})
	write(t, ws, "a.txt", "more\n")
	snap(t, s, "g", "l", nil)
	fi, err := os.Stat(s.dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("store dir mode %v %v", fi.Mode(), err)
	}
	filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := d.Info()
		if fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: mode %v", p, fi.Mode())
		}
		return nil
	})
}

// Checkpoints survive reopening the store in a fresh Store; DeleteGroup
// removes one group's and prunes objects only they held.
func TestPersistenceAndDeleteGroup(t *testing.T) {
	ws := t.TempDir()
	dir := filepath.Join(t.TempDir(), "store")
	write(t, ws, "a.txt", "only in thread one\n")
	write(t, ws, "big.bin", strings.Repeat("b", 200))
	s, err := Open(Options{Dir: dir, Workspace: ws, MaxFileSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	one := []Checkpoint{snap(t, s, "t1", "first", nil)}
	write(t, ws, "a.txt", "shared\n")
	one = append(one, snap(t, s, "t1", "second", nil))
	two := snap(t, s, "t2", "other", nil)
	s.Close()

	s2 := openStore(t, ws, func(o *Options) { o.Dir, o.MaxFileSize = dir, 100 })
	got, err := s2.List(testCtx(t), "t1")
	if err != nil {
		t.Fatal(err)
	}
	for i := range got { // times come back through JSON: compare instants
		if !got[i].Time.Equal(one[i].Time) {
			t.Fatalf("time %v != %v", got[i].Time, one[i].Time)
		}
		got[i].Time = one[i].Time
	}
	if !reflect.DeepEqual(got, one) || len(got[0].Skipped) != 1 {
		t.Fatalf("list\n%+v\nwant\n%+v", got, one)
	}
	if all, _ := s2.List(testCtx(t), ""); len(all) != 3 {
		t.Fatalf("all %+v", all)
	}
	onlyOne := treeOf(t, s2, one[0].ID)["a.txt"]
	if err := s2.DeleteGroup(testCtx(t), "t1"); err != nil {
		t.Fatal(err)
	}
	if l, _ := s2.List(testCtx(t), "t1"); len(l) != 0 {
		t.Fatalf("t1 still lists %+v", l)
	}
	if l, _ := s2.List(testCtx(t), "t2"); len(l) != 1 || l[0].ID != two.ID {
		t.Fatalf("t2 lists %+v", l)
	}
	if onlyOne != "only in thread one\n" {
		t.Fatal(onlyOne)
	}
	if _, err := s2.git(testCtx(t), gitCall{args: []string{"cat-file", "-e", one[0].ID}}); err == nil {
		t.Fatal("deleted checkpoint's commit not pruned")
	}
	if treeOf(t, s2, two.ID)["a.txt"] != "shared\n" {
		t.Fatal("t2's content lost")
	}
	if err := s2.Prune(testCtx(t), 0); err != nil {
		t.Fatal(err)
	}
	if l, _ := s2.List(testCtx(t), ""); len(l) != 0 {
		t.Fatalf("after Prune(0): %+v", l)
	}
	if err := s2.DeleteGroup(testCtx(t), "../x"); err == nil {
		t.Fatal("bad group accepted")
	}
}

// Parallel snapshots (tool calls in parallel) all succeed with distinct
// checkpoints; a cancelled context fails fast.
func TestConcurrentAndCancel(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, "a", "a")
	s := openStore(t, ws, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := os.WriteFile(filepath.Join(ws, "f"+string(rune('0'+i))), []byte("x"), 0o644)
			if err == nil {
				_, err = s.Snapshot(testCtx(t), "g", "l", nil)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if l, _ := s.List(testCtx(t), "g"); len(l) != 8 {
		t.Fatalf("%d checkpoints", len(l))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Snapshot(ctx, "g", "l", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
}

// A store inside the workspace (data dir under $HOME opened as the
// workspace) does not capture itself.
func TestStoreInsideWorkspace(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, "a", "a")
	s := openStore(t, ws, func(o *Options) { o.Dir = filepath.Join(ws, "data", "store") })
	cp := snap(t, s, "g", "l", nil)
	cp = snap(t, s, "g", "l", nil)
	if got := treeOf(t, s, cp.ID); !reflect.DeepEqual(got, map[string]string{"a": "a"}) {
		t.Fatalf("tree %q", got)
	}
}
