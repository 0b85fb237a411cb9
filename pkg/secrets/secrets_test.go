package secrets

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestInPath(t *testing.T) {
	for path, want := range map[string]string{
		"/w/.env":                      ".env",
		"/w/.env.local":                ".env.local",
		"/w/certs/server.PEM":          "server.PEM",
		"/w/tls.key":                   "tls.key",
		"/home/u/.ssh/config":          ".ssh",
		"/home/u/.aws/config":          ".aws",
		"/w/id_rsa.pub":                "id_rsa.pub",
		"/w/.npmrc":                    ".npmrc",
		"/w/deploy/credentials":        "credentials",
		"/w/src/main.go":               "",
		"/w/environment.go":            "",
		"/w/docs/keyboard.md":          "",
		"/w/.git-credentials":          ".git-credentials",
		"/w/.gnupg/pubring.kbx":        ".gnupg",
		"/w/deploy/id_ed25519":         "id_ed25519",
		"/w/deploy/id_ed25519.pub":     "id_ed25519.pub",
		"/w/id_ecdsa":                  "id_ecdsa",
		"/w/id_dsa":                    "id_dsa",
		"/w/certs/client.p12":          "client.p12",
		"/w/certs/client.PFX":          "client.PFX",
		"/home/u/.pgpass":              ".pgpass",
		"/w/kubeconfig":                "kubeconfig",
		"/home/u/.kube/config":         "config",
		"/home/u/.docker/config.json":  "config.json",
		"/w/android/release.keystore":  "release.keystore",
		"/w/android/release.jks":       "release.jks",
		"/w/.htpasswd":                 ".htpasswd",
		"/w/vault.kdbx":                "vault.kdbx",
		"/w/config/secrets.yml":        "secrets.yml",
		"/w/config/secrets.yaml":       "secrets.yaml",
		"/home/u/.vault-token":         ".vault-token",
		"/w/office.ovpn":               "office.ovpn",
		"/home/u/.config/gh/hosts.yml": "hosts.yml",
		"/home/u/.terraformrc":         ".terraformrc",
		"/w/infra/terraform.tfstate":   "terraform.tfstate",
		"/w/infra/x.tfstate.backup":    "x.tfstate.backup",
		"/w/putty.ppk":                 "putty.ppk",
		"/w/.pypirc":                   ".pypirc",
		// Source files named after the concept stay readable.
		"/w/pkg/keystore/keystore.go": "",
		"/w/pkg/pem/pem.go":           "",
		"/w/pkg/config/config.go":     "",
		"/w/config/config.json":       "",
		"/w/hosts.yml":                "",
		"/w/docs/secrets.md":          "",
		"/w/kube/config":              "",
		"/w/pkg/identity/id_test.go":  "",
		"/w/pkg/secrets/secrets.go":   "",
		"/w/terraform/main.tf":        "",
	} {
		assert.Equal(t, want, InPath(path), path)
	}
}

// Every glob matches a name the list flags (checked with the last glob
// component against a representative name), so a search excluding Globs
// excludes what In names.
func TestGlobsCoverTheList(t *testing.T) {
	globs := Globs()
	assert.Len(t, globs, len(list))
	for i, pt := range list {
		name := pt.name
		switch pt.kind {
		case prefix:
			name += "x"
		case suffix:
			name = "x" + name
		case inDir:
			name = pt.parent + "/" + name
		}
		assert.NotEmpty(t, InPath("/w/"+name), name)
		pat := globs[i][len("**/"):]
		ok, err := filepath.Match(pat, name)
		assert.NoError(t, err)
		assert.True(t, ok, "%s does not match %s", globs[i], name)
	}
}

func TestName(t *testing.T) {
	assert.True(t, Name("", ".env"))
	assert.True(t, Name(".kube", "config"))
	assert.True(t, Name(".KUBE", "Config"))
	assert.False(t, Name("kube", "config"))
	assert.False(t, Name("", "config"))
	assert.False(t, Name(".env", "x.go"), "the parent alone does not make a child secret; In checks every component")
}
