// Package secrets says which paths hold secrets: files and directories
// whose content an agent must never read or write without asking, however
// permissive the other rules are. The shell checker and the file
// permission decorator share this one list.
package secrets

import (
	"path/filepath"
	"strings"
)

// In returns the first path component that names a secret, or "": .env*,
// *.pem, *.key, id_rsa*, .netrc, .npmrc, .git-credentials, credentials,
// and anything under .ssh, .aws or .gnupg. Matching ignores case (macOS
// file systems do).
func In(parts []string) string {
	for _, p := range parts {
		l := strings.ToLower(p)
		switch {
		case strings.HasPrefix(l, ".env"), strings.HasSuffix(l, ".pem"), strings.HasSuffix(l, ".key"),
			strings.HasPrefix(l, "id_rsa"), l == ".netrc", l == ".npmrc", l == ".git-credentials",
			l == "credentials", l == ".ssh", l == ".aws", l == ".gnupg":
			return p
		}
	}
	return ""
}

// InPath is In over the components of path.
func InPath(path string) string {
	return In(strings.Split(filepath.ToSlash(path), "/"))
}
