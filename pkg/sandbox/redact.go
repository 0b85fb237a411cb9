package sandbox

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/gitctl"
	"github.com/magenta-nvim/magenta/pkg/secrets"
)

// gitConfigHasCredential reports whether a git config file's text holds
// a credential (secrets.GitConfigCredential): a token in a remote URL,
// sendemail.smtpPass, an Authorization header. A file git could not
// read counts as holding one.
func gitConfigHasCredential(text []byte) bool {
	entries, err := gitctl.ParseConfig(text)
	if err != nil {
		return true
	}
	for _, e := range entries {
		if secrets.GitConfigCredential(e.Key, e.Value) {
			return true
		}
	}
	return false
}

// redactGitConfig returns the config text with every credential
// replaced: the secret part of a URL by "***" (secrets.RedactURL), any
// other credential value by "***". It works line by line, as git's
// files are written (a value continued over lines is redacted whole);
// ok is false when it cannot be sure every credential is gone (the
// caller then hides the file).
func redactGitConfig(text []byte) (out []byte, ok bool) {
	var b bytes.Buffer
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), gitctl.MaxConfigSize)
	continued := false
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		// A value continued over lines (a trailing backslash) keeps its
		// shape, so git reads the redacted file as it read the original.
		continues := strings.HasSuffix(strings.TrimRight(line, " \t"), `\`)
		switch {
		case continued:
			line = "\t***"
		case strings.HasPrefix(trimmed, "["):
			header, rest, _ := strings.Cut(trimmed[1:], "]")
			header = redactHeader(header)
			section = gitSection(header)
			line = "[" + header + "]"
			if strings.TrimSpace(rest) != "" {
				key, val, _ := strings.Cut(strings.TrimSpace(rest), "=")
				line += " " + redactEntry(section, key, val)
			}
		case trimmed != "" && trimmed[0] != '#' && trimmed[0] != ';':
			key, val, _ := strings.Cut(trimmed, "=")
			line = "\t" + redactEntry(section, key, val)
		}
		if continues && !strings.HasSuffix(line, `\`) {
			line += `\`
		}
		continued = continues
		b.WriteString(line)
		b.WriteByte('\n')
	}
	if sc.Err() != nil || !redacted(b.Bytes()) {
		return nil, false
	}
	return b.Bytes(), true
}

// redacted checks, with git's own reading of the file, that every
// credential left is one redactGitConfig replaced: the line-based pass
// above and git's parser must agree, or the file is hidden instead.
func redacted(text []byte) bool {
	entries, err := gitctl.ParseConfig(text)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !secrets.GitConfigCredential(e.Key, e.Value) {
			continue
		}
		// What made it a credential must be what was replaced: the
		// subsection's URL, or the value.
		section, rest, _ := strings.Cut(e.Key, ".")
		sub := ""
		if i := strings.LastIndexByte(rest, '.'); i >= 0 {
			sub = rest[:i]
		}
		if secrets.URLHasCredentials(sub) && !strings.Contains(sub, "***") {
			return false
		}
		if !secrets.GitConfigCredential(section+".x."+e.Key[strings.LastIndexByte(e.Key, '.')+1:], e.Value) {
			continue // the subsection alone made it one, and it is redacted
		}
		if !strings.Contains(e.Value, "***") {
			return false
		}
	}
	return true
}

// redactHeader redacts a URL with credentials in a section header's
// subsection: [url "https://TOKEN@github.com/"], [http "https://u:p@h"].
func redactHeader(header string) string {
	name, sub, ok := strings.Cut(header, " ")
	if !ok {
		if name, sub, ok = strings.Cut(header, "."); ok {
			return name + "." + secrets.RedactURL(sub)
		}
		return header
	}
	return name + ` "` + secrets.RedactURL(strings.Trim(strings.TrimSpace(sub), `"`)) + `"`
}

// redactEntry redacts one "key = value" of a section.
func redactEntry(section, key, val string) string {
	key = strings.TrimSpace(key)
	val = strings.TrimSpace(val)
	unquoted := strings.Trim(val, `"`)
	// The value alone is judged: a URL with credentials in the
	// subsection was redacted in the header.
	name, _, _ := strings.Cut(section, ".")
	if !secrets.GitConfigCredential(name+".x."+strings.ToLower(key), unquoted) {
		return key + " = " + val
	}
	if red := secrets.RedactURL(unquoted); red != unquoted {
		return key + " = " + red
	}
	return key + " = ***"
}

// gitSection turns a section header's inside (`remote "origin"`,
// `http.https://x.example`) into git's canonical key prefix: the
// section lower-cased, a subsection as written.
func gitSection(header string) string {
	header = strings.TrimSpace(header)
	if name, sub, ok := strings.Cut(header, " "); ok {
		return strings.ToLower(name) + "." + strings.Trim(strings.TrimSpace(sub), `"`)
	}
	if name, sub, ok := strings.Cut(header, "."); ok {
		return strings.ToLower(name) + "." + sub
	}
	return strings.ToLower(header)
}

// redactedCopy returns the path of a file holding the redacted text of
// the git config at path, written once per content into a private
// directory of the host (the sandbox does not see it: it is bound over
// the original), or "" when the file holds no credential; hide is set
// when it holds one that cannot be redacted for sure.
func redactedCopy(path string) (copyPath string, hide bool) {
	text, err := readSmall(path, gitctl.MaxConfigSize)
	if err != nil || !gitConfigHasCredential(text) {
		return "", err != nil && exists(path)
	}
	red, ok := redactGitConfig(text)
	if !ok {
		return "", true
	}
	dir := redactedDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", true
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		return "", true // not ours as made: another user's, or a link
	}
	sum := sha256.Sum256(red)
	copyPath = filepath.Join(dir, hex.EncodeToString(sum[:16]))
	if _, err := os.Stat(copyPath); err == nil {
		return copyPath, false
	}
	tmp, err := os.CreateTemp(dir, "tmp-")
	if err != nil {
		return "", true
	}
	_, werr := tmp.Write(red)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), copyPath) != nil {
		_ = os.Remove(tmp.Name())
		return "", true
	}
	return copyPath, false
}

// redactedDir holds the redacted copies of git configs: private to this
// user (0700), outside every sandbox's view.
func redactedDir() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("magenta-sandbox-%d", os.Getuid()), "redacted")
}
