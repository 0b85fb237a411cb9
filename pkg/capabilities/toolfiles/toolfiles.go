// Package toolfiles places the files a tool call leaves for later: the
// shell's log, the full text of a long web page. Every call gets
// <root>/threads/<thread>/tools/<request>/<name>, with ids sanitised so
// that nothing can be written outside root, directories 0700 and files
// 0600. Store implements capabilities.Artifacts on the local disk.
package toolfiles

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxSegment caps one path segment made from an id.
const maxSegment = 128

// SafeSegment turns an id into one path segment: letters, digits, '_',
// and '.' or '-' after the first byte; anything else becomes '_'. An
// empty or all-dots id becomes "unknown".
func SafeSegment(id string) string {
	if strings.Trim(id, ".") == "" {
		return "unknown"
	}
	b := []byte(id)
	if len(b) > maxSegment {
		b = b[:maxSegment]
	}
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '_' || (i > 0 && (c == '.' || c == '-'))
		if !ok {
			b[i] = '_'
		}
	}
	return string(b)
}

// Path returns <root>/threads/<thread>/tools/<request>/<name> and checks
// that it stays under root.
func Path(root, threadID, requestID, name string) (string, error) {
	root = filepath.Clean(root)
	p := filepath.Join(root, "threads", SafeSegment(threadID), "tools", SafeSegment(requestID), SafeSegment(name))
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("tool file %q escapes %q", p, root)
	}
	return p, nil
}

// Create makes the directories (0700) and opens the file for writing
// (0600, truncated, never through a symlink).
func Create(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600)
}

// Store saves artifacts under Root.
type Store struct{ Root string }

// Save implements capabilities.Artifacts.
func (s Store) Save(threadID, requestID, name string, data []byte) (string, error) {
	p, err := Path(s.Root, threadID, requestID, name)
	if err != nil {
		return "", err
	}
	f, err := Create(p)
	if err != nil {
		return "", fmt.Errorf("save %s: %w", name, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return "", fmt.Errorf("save %s: %w", name, err)
	}
	return p, f.Close()
}
