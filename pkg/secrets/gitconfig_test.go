package secrets

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestURLHasCredentials(t *testing.T) {
	for url, want := range map[string]bool{
		"https://u:p@h/x.git":                       true,
		"https://ghp_TOKEN@github.com/o/r.git":      true,
		"HTTPS://oauth2:glpat-x@gitlab.com/o/r.git": true,
		"http://user@proxy:3128":                    true,
		"ftp://anonymous@ftp.example.com/pub":       true,
		"https://u:@h/x":                            true,
		"https://u:p@ss@h/x":                        true,
		"socks5://u:p@proxy:1080":                   true,
		"ssh://u:p@host/x":                          true,
		"user:pass@proxy:3128":                      true,
		"https://github.com/o/r.git":                false,
		"https://github.com/o/r@v1":                 false,
		"https://@github.com/o/r":                   false,
		"ssh://git@github.com/o/r.git":              false,
		"git@github.com:o/r.git":                    false,
		"git://host/x":                              false,
		"file:///srv/git/x.git":                     false,
		"/srv/git/x.git":                            false,
		"../x.git":                                  false,
		"a@example.com":                             false,
		"Jane Doe <jane@example.com>":               false,
		"":                                          false,
	} {
		assert.Equal(t, want, URLHasCredentials(url), url)
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://u:p@h":                                "https://u:***@h",
		"https://u:p@h/o/r.git":                        "https://u:***@h/o/r.git",
		"https://ghp_TOKEN@github.com/o/r":             "https://***@github.com/o/r",
		"https://x-access-token:ghs_abc@github.com/o/": "https://x-access-token:***@github.com/o/",
		"https://ghp_abcdef:x-oauth-basic@github.com/": "https://***:***@github.com/",
		"https://tok:@h/x":                             "https://***:@h/x",
		"user:pass@proxy:3128":                         "user:***@proxy:3128",
		"https://u:p@ss@h/x":                           "https://u:***@h/x",
		"ssh://git@github.com/o/r":                     "ssh://git@github.com/o/r",
		"git@github.com:o/r.git":                       "git@github.com:o/r.git",
		"https://github.com/o/r":                       "https://github.com/o/r",
	} {
		assert.Equal(t, want, RedactURL(in), in)
		if URLHasCredentials(in) {
			assert.Contains(t, RedactURL(in), "***", in)
		}
	}
}

func TestGitConfigCredential(t *testing.T) {
	for _, tc := range []struct {
		key, value string
		want       bool
	}{
		{"sendemail.smtppass", "hunter2", true},
		{"imap.pass", "hunter2", true},
		{"imap.pass", "", false},
		{"github.token", "ghp_x", true},
		{"hub.oauthtoken", "x", true},
		{"credential.https://example.com.clientsecret", "x", true},
		{"x.y.password", "x", true},
		{"x.passwd", "x", true},
		{"gpg.passphrase", "x", true},
		{"http.extraheader", "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hz", true},
		{"http.https://github.com/.extraheader", "Authorization: Bearer x", true},
		{"http.extraheader", "", false},
		{"remote.origin.url", "https://u:tok@github.com/o/r.git", true},
		{"remote.origin.pushurl", "https://ghp_x@github.com/o/r.git", true},
		{"remote.origin.url", "https://github.com/o/r.git", false},
		{"remote.origin.url", "git@github.com:o/r.git", false},
		{"submodule.lib.url", "https://u:p@host/lib.git", true},
		{"http.proxy", "http://u:p@proxy:3128", true},
		{"https.proxy", "u:p@proxy:3128", true},
		{"http.https://example.com.proxy", "http://proxy:3128", false},
		{"remote.origin.proxy", "socks5://u:p@proxy", true},
		{"url.https://oauth2:tok@gitlab.com/.insteadof", "https://gitlab.com/", true},
		{"url.git@github.com:.insteadof", "https://github.com/", false},
		{"url.https://github.com/.pushinsteadof", "https://u:p@github.com/", true},
		{"credential.https://u:p@example.com.username", "u", true},
		{"credential.helper", "!f() { echo username=u; echo password=hunter2; }; f", true},
		{"credential.helper", "!gh auth git-credential", false},
		{"credential.helper", "store", false},
		{"credential.https://source.developers.google.com.helper", "gcloud.sh", false},
		{"lfs.url", "https://u:p@lfs.example.com", true},
		{"user.name", "Jane", false},
		{"user.email", "jane@example.com", false},
		{"user.signingkey", "ABCDEF", false},
		{"core.editor", "vim", false},
		{"http.sslcertpasswordprotected", "true", false},
	} {
		assert.Equal(t, tc.want, GitConfigCredential(tc.key, tc.value), "%s = %s", tc.key, tc.value)
	}
}
