package sandbox

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/gitctl"
	"github.com/magenta-nvim/magenta/pkg/secrets"
)

func TestRedactGitConfig(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"[remote \"origin\"]\n\turl = https://u:p4ss@h/r.git\n", "[remote \"origin\"]\n\turl = https://u:***@h/r.git\n"},
		{"[sendemail]\n\tsmtpPass = \"s3cret\"\n", "[sendemail]\n\tsmtpPass = ***\n"},
		{"[http]\n\textraHeader = Authorization: Bearer abc\n", "[http]\n\textraHeader = ***\n"},
		{"[url \"https://ghp_0123456789abcdef0123456789abcdef@github.com/\"]\n\tinsteadOf = https://github.com/\n",
			"[url \"https://***@github.com/\"]\n\tinsteadOf = https://github.com/\n"},
		{"[core] fsmonitor = false\n[user]\n\tname = A\n", "[core] fsmonitor = false\n\tname = A\n"},
	} {
		if !gitConfigHasCredential([]byte(tc.in)) {
			continue
		}
		out, ok := redactGitConfig([]byte(tc.in))
		require.True(t, ok, tc.in)
		assert.Equal(t, tc.want, string(out))
	}
	// A credential continued over lines is redacted whole.
	out, ok := redactGitConfig([]byte("[imap]\n\tpass = abc\\\ndef\n"))
	require.True(t, ok)
	assert.NotContains(t, string(out), "abc")
	assert.NotContains(t, string(out), "def")
}

// Whatever a planted config holds, a redacted copy, when one is made,
// has no credential git would read that was not replaced, and the
// redaction never panics.
func FuzzRedactGitConfig(f *testing.F) {
	for _, seed := range []string{
		"[remote \"origin\"]\n\turl = https://u:p@h/r\n",
		"[sendemail]\nsmtpPass=x\n",
		"[url \"https://t@h/\"] insteadOf = x\n",
		"[http \"https://a:b@c\"]\n\tproxy = http://d:e@f\n",
		"[a]\n\tb = \"x\\\n\"y\n",
		"[remote.origin]\nurl=ftp://x@y\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, ok := redactGitConfig([]byte(in))
		if !ok {
			return
		}
		entries, err := gitctl.ParseConfig(out)
		require.NoError(t, err)
		for _, e := range entries {
			if secrets.GitConfigCredential(e.Key, e.Value) {
				assert.True(t, strings.Contains(e.Key+e.Value, "***"), "%q = %q left in %q", e.Key, e.Value, out)
			}
		}
	})
}
