package secrets

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestInPath(t *testing.T) {
	for path, want := range map[string]string{
		"/w/.env":               "/.env"[1:],
		"/w/.env.local":         ".env.local",
		"/w/certs/server.PEM":   "server.PEM",
		"/w/tls.key":            "tls.key",
		"/home/u/.ssh/config":   ".ssh",
		"/home/u/.aws/config":   ".aws",
		"/w/id_rsa.pub":         "id_rsa.pub",
		"/w/.npmrc":             ".npmrc",
		"/w/deploy/credentials": "credentials",
		"/w/src/main.go":        "",
		"/w/environment.go":     "",
		"/w/docs/keyboard.md":   "",
		"/w/.git-credentials":   ".git-credentials",
		"/w/.gnupg/pubring.kbx": ".gnupg",
	} {
		assert.Equal(t, want, InPath(path), path)
	}
}
