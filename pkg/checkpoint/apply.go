package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// testHookRename, when set, runs before each file is put in place; an
// error it returns fails ApplyToDisk there, so tests can see the undo.
var testHookRename func(rel string) error

// ApplyToDisk carries out p under root, all or nothing. Every new content
// is first written to a temporary file beside its target (or in the
// nearest existing directory above it); only when all are written does it
// move each replaced or deleted file aside (a rename, beside it) and move
// the new one in, creating missing directories. If any step fails,
// everything done is undone — new files removed, moved files moved back,
// created directories removed — and the error names the path and the
// reason. A file replaced keeps its permission bits (a 0600 secret stays
// 0600) but for the executable bits, which follow the plan. It never
// writes through a symbolic link: a path whose parent is
// a link, or a file not being deleted, fails. Once every file is in
// place, the moved-aside files are removed, and so are directories left
// empty by deleted files (they were created since the checkpoint, as git
// keeps no empty directories); a failure there is not an error.
func ApplyToDisk(root string, p Plan) error {
	if !filepath.IsAbs(root) {
		return fmt.Errorf("restore: root %q is not absolute", root)
	}
	a := &applier{root: filepath.Clean(root), deleting: map[string]bool{}, temps: map[string]string{}}
	files := append([]FileRestore(nil), p.Files...)
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	for i, f := range files {
		if err := validRel(f.Path); err != nil {
			return fmt.Errorf("restore: %w", err)
		}
		if i > 0 && files[i-1].Path == f.Path {
			return fmt.Errorf("restore: %s named twice", f.Path)
		}
		if f.Delete {
			a.deleting[f.Path] = true
		}
	}
	defer a.removeTemps()
	for _, f := range files {
		if !f.Delete {
			if err := a.stage(f); err != nil {
				return fmt.Errorf("restore %s: %w", f.Path, err)
			}
		}
	}
	if err := a.commit(files); err != nil {
		if uerr := a.undo(); uerr != nil {
			err = errors.Join(err, fmt.Errorf("undo incomplete: %w", uerr))
		}
		return err
	}
	a.finish(files)
	return nil
}

type applier struct {
	root     string
	deleting map[string]bool   // paths the plan deletes
	temps    map[string]string // path → staged temporary file not yet moved in
	undos    []func() error    // to run in reverse on failure
	backups  []string          // moved-aside files and directories, removed at the end
}

func (a *applier) abs(rel string) string { return filepath.Join(a.root, filepath.FromSlash(rel)) }

// stage writes f's new content to a temporary file.
func (a *applier) stage(f FileRestore) error {
	dir := a.root
	rel := ""
	for _, c := range strings.Split(path.Dir(f.Path), "/") {
		if c == "." {
			break
		}
		rel = path.Join(rel, c)
		fi, err := os.Lstat(a.abs(rel))
		if errors.Is(err, fs.ErrNotExist) || err == nil && !fi.IsDir() && a.deleting[rel] {
			break
		}
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a directory", rel)
		}
		dir = a.abs(rel)
	}
	name, err := tempName(dir, restorePrefix)
	if err != nil {
		return err
	}
	perm := keepPerm(a.abs(f.Path), f.Mode.Perm())
	switch {
	case f.Mode&os.ModeSymlink != 0 || f.Symlink != "":
		err = os.Symlink(f.Symlink, name)
	case perm == 0:
		perm = 0o644 // a FileRestore built without a mode
		fallthrough
	default:
		err = writeNew(name, f.Content, perm)
	}
	if err != nil {
		os.Remove(name)
		return err
	}
	a.temps[f.Path] = name
	return nil
}

// commit moves deleted files aside, then every staged file in.
func (a *applier) commit(files []FileRestore) error {
	for _, f := range files {
		if f.Delete {
			if err := a.moveAside(f.Path, true); err != nil {
				return fmt.Errorf("restore %s: %w", f.Path, err)
			}
		}
	}
	for _, f := range files {
		if f.Delete {
			continue
		}
		if err := a.put(f.Path); err != nil {
			return fmt.Errorf("restore %s: %w", f.Path, err)
		}
	}
	return nil
}

// parents checks that the directories above rel are real directories
// (creating missing ones when mk is set); ok is false if one is missing.
func (a *applier) parents(rel string, mk bool) (bool, error) {
	cur := ""
	for _, c := range strings.Split(path.Dir(rel), "/") {
		if c == "." {
			break
		}
		cur = path.Join(cur, c)
		name := a.abs(cur)
		fi, err := os.Lstat(name)
		switch {
		case errors.Is(err, fs.ErrNotExist) && mk:
			if err := os.Mkdir(name, 0o755); err != nil {
				return false, err
			}
			a.undos = append(a.undos, func() error { return os.Remove(name) })
		case errors.Is(err, fs.ErrNotExist):
			return false, nil
		case err != nil:
			return false, err
		case !fi.IsDir():
			return false, fmt.Errorf("%s is not a directory", cur)
		}
	}
	return true, nil
}

// Names of ApplyToDisk's temporary files, beside their targets.
const (
	restorePrefix = ".magenta-restore-"
	backupPrefix  = ".magenta-backup-"
)

// moveAside renames what is at rel to a backup name beside it. A missing
// file is fine. A directory is moved aside only where a file goes back,
// and only if it holds nothing but files this restore moved aside (its
// deleted files).
func (a *applier) moveAside(rel string, deleting bool) error {
	ok, err := a.parents(rel, false)
	if err != nil || !ok {
		return err
	}
	name := a.abs(rel)
	fi, err := os.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.IsDir() && (deleting || !onlyBackups(name)) {
		return errors.New("is a directory holding files not in the checkpoint")
	}
	bak, err := tempName(filepath.Dir(name), backupPrefix)
	if err != nil {
		return err
	}
	if err := os.Rename(name, bak); err != nil {
		return err
	}
	a.backups = append(a.backups, bak)
	a.undos = append(a.undos, func() error { return os.Rename(bak, name) })
	return nil
}

// put moves rel's staged file into place.
func (a *applier) put(rel string) error {
	if _, err := a.parents(rel, true); err != nil {
		return err
	}
	if err := a.moveAside(rel, false); err != nil {
		return err
	}
	if testHookRename != nil {
		if err := testHookRename(rel); err != nil {
			return err
		}
	}
	name, tmp := a.abs(rel), a.temps[rel]
	if err := os.Rename(tmp, name); err != nil {
		return err
	}
	delete(a.temps, rel)
	a.undos = append(a.undos, func() error { return os.Remove(name) })
	return nil
}

func (a *applier) undo() error {
	var errs []error
	for i := len(a.undos) - 1; i >= 0; i-- {
		if err := a.undos[i](); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (a *applier) removeTemps() {
	for _, t := range a.temps {
		os.Remove(t)
	}
}

// finish drops the backups and the directories deleted files leave empty.
func (a *applier) finish(files []FileRestore) {
	for _, b := range a.backups {
		os.RemoveAll(b) // a file, or a directory holding only backups
	}
	for i := len(files) - 1; i >= 0; i-- {
		if !files[i].Delete {
			continue
		}
		for d := path.Dir(files[i].Path); d != "."; d = path.Dir(d) {
			if syscall.Rmdir(a.abs(d)) != nil { // directories only, and only empty ones
				break
			}
		}
	}
}
