package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testCtx bounds every test operation: a hang fails instead of stalling.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func openStore(t testing.TB, ws string, mod func(*Options)) *Store {
	t.Helper()
	opts := Options{Dir: filepath.Join(t.TempDir(), "store"), Workspace: ws}
	if mod != nil {
		mod(&opts)
	}
	s, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func write(t testing.TB, ws, rel, content string) {
	t.Helper()
	name := filepath.Join(ws, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t testing.TB, ws, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func snap(t testing.TB, s *Store, group, label string, overlay map[string][]byte) Checkpoint {
	t.Helper()
	cp, err := s.Snapshot(testCtx(t), group, label, overlay)
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

// treeOf lists a checkpoint's files: path → content ("link:" target for
// links, "+x:" prefix for executables).
func treeOf(t testing.TB, s *Store, id string) map[string]string {
	t.Helper()
	ctx := testCtx(t)
	out, err := s.git(ctx, gitCall{args: []string{"ls-tree", "-r", "-z", id}})
	if err != nil {
		t.Fatal(err)
	}
	type ent struct{ mode, oid, path string }
	var ents []ent
	var oids []string
	for _, rec := range splitZ(out) {
		head, p, _ := strings.Cut(rec, "\t")
		f := strings.Fields(head)
		ents = append(ents, ent{f[0], f[2], p})
		oids = append(oids, f[2])
	}
	blobs, err := s.blobs(ctx, oids)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range ents {
		switch e.mode {
		case "120000":
			m[e.path] = "link:" + string(blobs[e.oid])
		case "100755":
			m[e.path] = "+x:" + string(blobs[e.oid])
		default:
			m[e.path] = string(blobs[e.oid])
		}
	}
	return m
}

// diskState describes every file, link and directory under root except
// .git, in the form treeOf uses (directories as "dir").
func diskState(t testing.TB, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.Name() == ".git":
			return filepath.SkipDir
		case rel == ".":
		case d.IsDir():
			m[rel] = "dir"
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			m[rel] = "link:" + target
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fi, _ := d.Info()
			if fi.Mode()&0o100 != 0 {
				m[rel] = "+x:" + string(b)
			} else {
				m[rel] = string(b)
			}
		default:
			m[rel] = "special"
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// hashTree hashes every file's name, mode and content under root.
func hashTree(t testing.TB, root string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		h.Write([]byte(p + "\x00" + fi.Mode().String() + "\x00"))
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// userGit runs the system git as a user would, in dir.
func userGit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@x", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@x")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func changesOf(t testing.TB, s *Store, id string, overlay map[string][]byte) map[string]Change {
	t.Helper()
	cs, err := s.Changes(testCtx(t), id, overlay)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]Change{}
	for _, c := range cs {
		m[c.Path] = c
	}
	return m
}

func restore(t testing.TB, s *Store, id string) Plan {
	t.Helper()
	p, err := s.Plan(testCtx(t), id, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ApplyToDisk(s.ws, p); err != nil {
		t.Fatal(err)
	}
	return p
}

func skipped(cp Checkpoint) map[string]string { return skipMap(cp.Skipped) }
