package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

// A non-git workspace: edit, rm, create, chmod, symlink, binary; Changes
// lists each with line counts; Plan + ApplyToDisk bring back exactly the
// checkpoint's files.
func TestRoundTrip(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, "a.txt", "one\ntwo\nthree\n")
	write(t, ws, "dir/b.txt", "bee\n")
	write(t, ws, "run.sh", "#!/bin/sh\n")
	write(t, ws, "bin.dat", "\x00\x01\x02binary")
	if err := os.Symlink("a.txt", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, ws, nil)
	before := diskState(t, ws)
	cp := snap(t, s, "thread-1", "before tool", nil)
	if len(cp.ID) != 40 || cp.Label != "before tool" || cp.Group != "thread-1" || len(cp.Skipped) != 0 {
		t.Fatalf("checkpoint %+v", cp)
	}
	want := map[string]string{"a.txt": "one\ntwo\nthree\n", "dir/b.txt": "bee\n", "run.sh": "#!/bin/sh\n",
		"bin.dat": "\x00\x01\x02binary", "link": "link:a.txt"}
	if got := treeOf(t, s, cp.ID); !reflect.DeepEqual(got, want) {
		t.Fatalf("tree %q", got)
	}

	write(t, ws, "a.txt", "one\nTWO\nthree\nfour\n") // sed-like edit + append
	os.Remove(filepath.Join(ws, "dir/b.txt"))
	write(t, ws, "new/deep/c.txt", "new\n")
	os.Chmod(filepath.Join(ws, "run.sh"), 0o755)
	write(t, ws, "bin.dat", "\x00\x09changed")
	os.Remove(filepath.Join(ws, "link"))
	os.Symlink("run.sh", filepath.Join(ws, "link"))

	got := changesOf(t, s, cp.ID, nil)
	wantC := map[string]Change{
		"a.txt":          {"a.txt", Modified, 2, 1},
		"dir/b.txt":      {"dir/b.txt", Deleted, 0, 1},
		"new/deep/c.txt": {"new/deep/c.txt", Added, 1, 0},
		"run.sh":         {"run.sh", Modified, 0, 0},
		"bin.dat":        {"bin.dat", Modified, -1, -1},
		"link":           {"link", Modified, 1, 1},
	}
	if !reflect.DeepEqual(got, wantC) {
		t.Fatalf("changes %+v", got)
	}
	p := restore(t, s, cp.ID)
	if !strings.Contains(p.Preview, "-TWO") || !strings.Contains(p.Preview, "+two") {
		t.Errorf("preview:\n%s", p.Preview)
	}
	if after := diskState(t, ws); !reflect.DeepEqual(after, before) {
		t.Fatalf("after restore\n%q\nwant\n%q", after, before)
	}
	if c := changesOf(t, s, cp.ID, nil); len(c) != 0 {
		t.Fatalf("changes after restore: %+v", c)
	}
}

// Too large, FIFO, unreadable and nested repositories are skipped and
// named; restoring leaves them alone; a FIFO never blocks.
func TestSkipped(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, "small.txt", "ok\n")
	write(t, ws, "big.bin", strings.Repeat("x", 2000))
	if err := syscall.Mkfifo(filepath.Join(ws, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, ws, "sub/keep.txt", "k\n")
	if err := syscall.Mkfifo(filepath.Join(ws, "sub/pipe2"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, ws, "nested/x.txt", "x\n")
	userGit(t, filepath.Join(ws, "nested"), "init", "-q")
	write(t, ws, "secret.txt", "s\n")
	os.Chmod(filepath.Join(ws, "secret.txt"), 0)
	s := openStore(t, ws, func(o *Options) { o.MaxFileSize = 1000 })
	cp := snap(t, s, "g", "l", nil)
	sk := skipped(cp)
	wantSk := map[string]string{"big.bin": "larger than 1000 bytes, not captured", "pipe": reasonPipe,
		"sub/pipe2": reasonPipe, "nested/": reasonNested, "secret.txt": reasonUnreadable}
	if os.Geteuid() == 0 {
		delete(wantSk, "secret.txt") // root reads everything: the file is captured
	}
	if !reflect.DeepEqual(sk, wantSk) {
		t.Fatalf("skipped %q", sk)
	}
	tree := treeOf(t, s, cp.ID)
	for _, p := range []string{"big.bin", "pipe", "nested/x.txt"} {
		if _, ok := tree[p]; ok {
			t.Errorf("%s captured", p)
		}
	}
	// Changed since: the big file grows, the nested repo gains a file, a
	// new big file appears. None is listed, none is deleted by a restore.
	write(t, ws, "big.bin", strings.Repeat("y", 3000))
	write(t, ws, "nested/y.txt", "y\n")
	write(t, ws, "big2.bin", strings.Repeat("z", 3000))
	write(t, ws, "small.txt", "changed\n")
	if c := changesOf(t, s, cp.ID, nil); len(c) != 1 || c["small.txt"].Kind != Modified {
		t.Fatalf("changes %+v", c)
	}
	restore(t, s, cp.ID)
	if read(t, ws, "small.txt") != "ok\n" || read(t, ws, "big2.bin") == "" || read(t, ws, "nested/y.txt") != "y\n" {
		t.Fatal("restore touched skipped paths")
	}
	// A captured file that grows over the cap is skipped now: listed as
	// modified with unknown counts, and restorable.
	write(t, ws, "small.txt", strings.Repeat("w", 5000))
	c := changesOf(t, s, cp.ID, nil)
	if c["small.txt"] != (Change{"small.txt", Modified, -1, -1}) || len(c) != 1 {
		t.Fatalf("changes %+v", c)
	}
	restore(t, s, cp.ID)
	if read(t, ws, "small.txt") != "ok\n" {
		t.Fatal("small.txt not restored")
	}
}

// .gitignore, DefaultExcludes and Options.Exclude are honoured; a file
// ignored after a checkpoint is neither listed nor deleted.
func TestExcludes(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, ".gitignore", "*.log\nsecret/\n")
	write(t, ws, "app.log", "log\n")
	write(t, ws, "secret/key", "k\n")
	write(t, ws, "node_modules/m/index.js", "js\n")
	write(t, ws, "pkg/__pycache__/x.pyc", "pyc\n")
	write(t, ws, "scratch.tmp", "tmp\n")
	write(t, ws, "main.go", "package main\n")
	write(t, ws, "build.out", "artifact\n")
	s := openStore(t, ws, func(o *Options) { o.Exclude = []string{"*.tmp"} })
	cp := snap(t, s, "g", "l", nil)
	want := map[string]string{".gitignore": "*.log\nsecret/\n", "main.go": "package main\n", "build.out": "artifact\n"}
	if got := treeOf(t, s, cp.ID); !reflect.DeepEqual(got, want) {
		t.Fatalf("tree %q", got)
	}
	write(t, ws, ".gitignore", "*.log\nsecret/\n*.out\n")
	cp2 := snap(t, s, "g", "l2", nil)
	if _, ok := treeOf(t, s, cp2.ID)["build.out"]; ok {
		t.Fatal("newly ignored file still captured")
	}
	// Back to cp: only .gitignore differs; build.out is on disk as it was.
	c := changesOf(t, s, cp.ID, nil)
	if len(c) != 1 || c[".gitignore"].Kind != Modified {
		t.Fatalf("changes %+v", c)
	}
	// Back to cp2: build.out, ignored now, is not deleted.
	p, err := s.Plan(testCtx(t), cp2.ID, nil)
	if err != nil || len(p.Files) != 0 {
		t.Fatalf("plan %+v %v", p.Files, err)
	}
}

// Overlay contents win over the disk; keys may be absolute; a buffer
// outside the workspace is ignored.
func TestOverlay(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, "a.txt", "disk\n")
	s := openStore(t, ws, nil)
	ov := map[string][]byte{
		filepath.Join(ws, "a.txt"):     []byte("buffer\n"),
		"unsaved/new.txt":              []byte("fresh\n"),
		"/etc/hostname-not-in-ws":      []byte("x"),
		filepath.Join(ws, ".git/HEAD"): []byte("x"),
	}
	cp := snap(t, s, "g", "l", ov)
	want := map[string]string{"a.txt": "buffer\n", "unsaved/new.txt": "fresh\n"}
	if got := treeOf(t, s, cp.ID); !reflect.DeepEqual(got, want) {
		t.Fatalf("tree %q", got)
	}
	// Against the disk alone: a.txt differs, new.txt is gone.
	c := changesOf(t, s, cp.ID, nil)
	if len(c) != 2 || c["a.txt"].Kind != Modified || c["unsaved/new.txt"].Kind != Deleted {
		t.Fatalf("changes %+v", c)
	}
	if c := changesOf(t, s, cp.ID, ov); len(c) != 0 {
		t.Fatalf("changes with the same overlay %+v", c)
	}
	restore(t, s, cp.ID)
	if read(t, ws, "a.txt") != "buffer\n" || read(t, ws, "unsaved/new.txt") != "fresh\n" {
		t.Fatal("overlay content not restored")
	}
}

func TestTooLarge(t *testing.T) {
	ws := t.TempDir()
	for i := range 10 {
		write(t, ws, filepath.Join("d", string(rune('a'+i))), "0123456789")
	}
	var tl *TooLargeError
	s := openStore(t, ws, func(o *Options) { o.MaxFiles = 5 })
	if _, err := s.Snapshot(testCtx(t), "g", "l", nil); !errors.As(err, &tl) || tl.Files != 6 || tl.MaxFiles != 5 {
		t.Fatalf("err %v (%+v)", err, tl)
	}
	s = openStore(t, ws, func(o *Options) { o.MaxBytes = 50 })
	if _, err := s.Snapshot(testCtx(t), "g", "l", nil); !errors.As(err, &tl) || tl.Bytes != 60 {
		t.Fatalf("err %v (%+v)", err, tl)
	}
	// Within limits, later growth is counted from the index.
	s = openStore(t, ws, func(o *Options) { o.MaxFiles = 11 })
	snap(t, s, "g", "l", nil)
	write(t, ws, "e1", "x")
	snap(t, s, "g", "l", nil)
	write(t, ws, "e2", "x")
	if _, err := s.Snapshot(testCtx(t), "g", "l", nil); !errors.As(err, &tl) || tl.Files != 12 {
		t.Fatalf("err %v", err)
	}
}

// A write failure while staging still yields a checkpoint, marked
// Incomplete, naming what it could not hold; restoring leaves those alone.
func TestIncomplete(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, "a.txt", "1\n")
	write(t, ws, "b.txt", "1\n")
	s := openStore(t, ws, nil)
	cp := snap(t, s, "g", "l", nil)
	write(t, ws, "a.txt", "2\n")
	testHookUpdateIndex = func() error { return errors.New("no space left on device") }
	cp2 := snap(t, s, "g", "l2", nil)
	testHookUpdateIndex = nil
	if !strings.Contains(cp2.Incomplete, "no space") || !strings.Contains(skipped(cp2)["a.txt"], "no space") {
		t.Fatalf("checkpoint %+v", cp2)
	}
	write(t, ws, "b.txt", "2\n")
	p, err := s.Plan(testCtx(t), cp2.ID, nil)
	if err != nil || len(p.Files) != 1 || p.Files[0].Path != "b.txt" {
		t.Fatalf("plan %+v %v", p.Files, err)
	}
	if c := changesOf(t, s, cp.ID, nil); len(c) != 2 {
		t.Fatalf("changes %+v", c)
	}
}

func TestUnchangedSnapshotSharesTree(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, "a", "a")
	s := openStore(t, ws, nil)
	a, b := snap(t, s, "g", "1", nil), snap(t, s, "g", "2", nil)
	ta, _, _ := s.load(testCtx(t), a.ID)
	tb, _, _ := s.load(testCtx(t), b.ID)
	if a.ID == b.ID || ta != tb {
		t.Fatalf("ids %s %s trees %s %s", a.ID, b.ID, ta, tb)
	}
}

func TestWorkspaceKey(t *testing.T) {
	k1, k2 := WorkspaceKey("/home/u/my project"), WorkspaceKey("/srv/my project")
	if !strings.HasPrefix(k1, "my_project-") || k1 == k2 || len(k1) != len("my_project-")+12 {
		t.Fatalf("%s %s", k1, k2)
	}
	if k := WorkspaceKey("/"); !strings.HasPrefix(k, "root-") {
		t.Fatal(k)
	}
	if k := WorkspaceKey("/x/.hidden"); !strings.HasPrefix(k, "hidden-") {
		t.Fatal(k)
	}
}
