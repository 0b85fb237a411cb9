package sandbox_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Policy.Readable and Policy.Writable say what bwrap really allows: each
// path is judged by the policy and probed inside the sandbox.
func TestPolicyAgreesWithTheSandbox(t *testing.T) {
	w := newWorld(t)
	require.NoError(t, os.Symlink(filepath.Join(w.ws, "src"), filepath.Join(w.home, "src-link")))
	require.NoError(t, os.Symlink(filepath.Join(w.home, ".aws"), filepath.Join(w.ws, "aws-link")))

	for _, tc := range []struct {
		path        string
		read, write bool
		probeWrite  bool // false for host files a wrong answer must not damage
	}{
		{filepath.Join(w.ws, "src", "app.go"), true, true, true},
		{filepath.Join(w.ws, "Makefile"), true, true, true},
		{filepath.Join(w.ws, "new.txt"), false, true, true}, // not there yet: nothing to read
		{filepath.Join(w.ws, ".env"), false, false, true},
		{filepath.Join(w.ws, "server.key"), false, false, true},
		{filepath.Join(w.ws, "notes-link"), false, false, true},
		{filepath.Join(w.ws, "aws-link", "credentials"), false, false, true},
		{filepath.Join(w.ws, ".git", "config"), true, false, true},
		{filepath.Join(w.ws, ".git", "hooks", "pre-commit"), true, false, true},
		{filepath.Join(w.ws, ".git", "hooks", "post-merge"), false, false, true},
		{filepath.Join(w.ws, ".git", "HEAD"), true, false, true},
		{filepath.Join(w.ws, ".git", "commondir"), false, false, true},
		{filepath.Join(w.home, "notes.txt"), false, false, true},
		{filepath.Join(w.home, "src-link", "app.go"), false, false, true}, // a link in the hidden home
		{filepath.Join(w.home, "go", "pkg", "mod", "m.go"), true, false, true},
		{filepath.Join(w.home, "escaped.txt"), false, false, true},
		{filepath.Join(w.home, "cache", "keep.txt"), true, true, true},
		{filepath.Join(w.home, ".ssh", "id_rsa"), false, false, true},
		{filepath.Join(w.home, ".aws", "credentials"), false, false, true},
		{filepath.Join(w.outside, "file.txt"), false, false, true},
		{"/etc/passwd", true, false, false},
	} {
		before, statErr := os.ReadFile(tc.path)
		exists := statErr == nil

		policyRead, policyWrite := w.policy.Readable(tc.path), w.policy.Writable(tc.path)
		if exists {
			assert.Equal(t, tc.read, policyRead, "Readable(%s)", tc.path)
		}
		assert.Equal(t, tc.write, policyWrite, "Writable(%s)", tc.path)

		got := w.run(t, w.policy, w.ws, "cat -- "+shellQuote(tc.path))
		sandboxRead := got.code == 0 && exists && got.out == string(before)
		if exists {
			assert.Equal(t, policyRead, sandboxRead, "sandbox read of %s: %q", tc.path, got.out)
		}
		if !tc.probeWrite {
			continue
		}
		w.run(t, w.policy, w.ws, "printf probe >> "+shellQuote(tc.path))
		after, _ := os.ReadFile(tc.path)
		sandboxWrite := string(after) == string(before)+"probe"
		assert.Equal(t, policyWrite, sandboxWrite, "sandbox write of %s", tc.path)
	}
}

func shellQuote(s string) string {
	out := "'"
	for _, r := range s {
		if r == '\'' {
			out += `'\''`
		} else {
			out += string(r)
		}
	}
	return out + "'"
}
