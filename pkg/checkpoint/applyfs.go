package checkpoint

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
)

// writeNew creates name (which must not exist) holding data, with perm.
func writeNew(name string, data []byte, perm os.FileMode) error {
	fh, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = fh.Write(data)
	if err == nil {
		err = fh.Chmod(perm)
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	return err
}

// tempName is a fresh random name in dir.
func tempName(dir, prefix string) (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return filepath.Join(dir, prefix+hex.EncodeToString(b[:])), nil
}

// onlyBackups reports whether dir holds only backups, at any depth.
func onlyBackups(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		ok := strings.HasPrefix(e.Name(), backupPrefix)
		if e.IsDir() {
			ok = onlyBackups(filepath.Join(dir, e.Name()))
		}
		if !ok {
			return false
		}
	}
	return true
}

// keepPerm is the mode to give a file replacing name: git only knows
// 0644 and 0755, so an existing regular file's bits are kept, with the
// executable bits set (where readable) or cleared as want says.
func keepPerm(name string, want os.FileMode) os.FileMode {
	fi, err := os.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() || want == 0 {
		return want
	}
	perm := fi.Mode().Perm() &^ 0o111
	if want&0o100 != 0 {
		perm |= (perm & 0o444) >> 2
	}
	return perm
}
