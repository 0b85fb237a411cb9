package secrets

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// The red team's findings (issue 23) and the other credential files the
// list names, each with the component In reports.
func TestInPathNewNames(t *testing.T) {
	for path, want := range map[string]string{
		"/w/credentials.json":                       "credentials.json",
		"/w/deploy/prod.env":                        "prod.env",
		"/w/staging.ENV":                            "staging.ENV",
		"/w/config/secrets.json":                    "secrets.json",
		"/w/.streamlit/secrets.toml":                "secrets.toml",
		"/w/config/secrets.prod.yml":                "secrets.prod.yml",
		"/w/infra/prod.tfvars":                      "prod.tfvars",
		"/w/infra/terraform.tfvars.json":            "terraform.tfvars.json",
		"/w/kubeconfig.yaml":                        "kubeconfig.yaml",
		"/w/kubeconfig.yml":                         "kubeconfig.yml",
		"/w/kubeconfig.prod":                        "kubeconfig.prod",
		"/w/k8s/admin.kubeconfig":                   "admin.kubeconfig",
		"/w/.yarnrc.yml":                            ".yarnrc.yml",
		"/home/u/.yarnrc":                           ".yarnrc",
		"/w/keys/AuthKey_ABC123.p8":                 "AuthKey_ABC123.p8",
		"/w/.flaskenv":                              ".flaskenv",
		"/w/config/database.yml":                    "database.yml",
		"/home/u/.my.cnf":                           ".my.cnf",
		"/home/u/.pgpass":                           ".pgpass",
		"/home/u/.bash_history":                     ".bash_history",
		"/home/u/.zsh_history":                      ".zsh_history",
		"/home/u/.psql_history":                     ".psql_history",
		"/home/u/.mysql_history":                    ".mysql_history",
		"/home/u/.python_history":                   ".python_history",
		"/home/u/.node_repl_history":                ".node_repl_history",
		"/home/u/.sqlite_history":                   ".sqlite_history",
		"/home/u/.local/share/fish/fish_history":    "fish_history",
		"/home/u/.config/sops/age/keys.txt":         "keys.txt",
		"/home/u/.config/github-copilot/hosts.json": "hosts.json",
		"/home/u/.config/github-copilot/apps.json":  "apps.json",
		"/home/u/.cargo/credentials.toml":           "credentials.toml",
		"/home/u/.cargo/credentials":                "credentials",
		"/home/u/.s3cfg":                            ".s3cfg",
		"/home/u/.boto":                             ".boto",
		"/home/u/.dockercfg":                        ".dockercfg",
		"/w/.env.production":                        ".env.production",
		"/home/u/.azure/msal_token_cache.json":      ".azure",
		"/home/u/.config/gcloud/application_default_credentials.json": "application_default_credentials.json",
		"/home/u/.config/gcloud/access_tokens.db":                     "access_tokens.db",
		"/home/u/.config/gcloud/legacy_credentials/u/adc.json":        "legacy_credentials",
		"/home/u/.terraform.d/credentials.tfrc.json":                  "credentials.tfrc.json",
		"/home/u/.config/rclone/rclone.conf":                          "rclone.conf",
		"/home/u/.m2/settings.xml":                                    "settings.xml",
		"/home/u/.gradle/gradle.properties":                           "gradle.properties",
		"/home/u/.config/hub":                                         "hub",
		"/w/login.keychain-db":                                        "login.keychain-db",
		"/home/u/_netrc":                                              "_netrc",
		"/home/u/.mylogin.cnf":                                        ".mylogin.cnf",
		"/jenkins/credentials.xml":                                    "credentials.xml",
	} {
		assert.Equal(t, want, InPath(path), path)
	}
}

// Source files named after the concept, and other ordinary names, stay
// readable.
func TestInPathNegatives(t *testing.T) {
	for _, path := range []string{
		"/w/pkg/secrets/secrets.go", "/w/pkg/auth/credentials.go", "/w/credentials_test.go",
		"/w/internal/env/env.go", "/w/src/environment.ts", "/w/src/environments/environment.prod.ts",
		"/w/pkg/keys/keys.go", "/w/config/database.go", "/w/config/database.rb", "/w/db/database.yml",
		"/w/docs/secrets.md", "/w/docs/credentials.rst", "/w/src/secrets.py", "/w/lib/credentials.rb",
		"/w/kind/pkg/kubecfg/kubeconfig.go", "/w/src/kubeconfig.ts", "/w/src/secrets.config.ts",
		"/w/src/secrets.d.ts", "/w/src/secrets.spec.ts", "/w/history.go", "/w/bash_history.go",
		"/w/keys.txt", "/w/hosts.json", "/w/apps.json", "/w/settings.xml", "/w/gradle.properties",
		"/w/src/passwords.go", "/w/main.go.bak", "/w/notes.txt~", "/w/.main.go.swp", "/w/README.md.orig",
		"/w/pkg/secrets/secrets.go.bak", "/w/token.go", "/w/backup.tmp", "/w/src/.swp",
		"/w/Dockerfile", "/w/env", "/w/environment.yml", "/w/pkg/envconfig/envconfig.go",
		"/w/config/config.go", "/w/age/age.go", "/w/fish/config.fish", "/w/hub/hub.go",
	} {
		assert.Equal(t, "", InPath(path), path)
	}
}

// A copy of a secret under a backup name is a secret.
func TestInPathBackups(t *testing.T) {
	for path, want := range map[string]string{
		"/w/certs/server.key~":        "server.key~",
		"/w/config/secrets.yml.bak":   "secrets.yml.bak",
		"/w/.env.orig":                ".env.orig",
		"/home/u/.ssh/.id_rsa.swp":    ".ssh",
		"/w/.id_rsa.swp":              ".id_rsa.swp",
		"/w/.id_ed25519.swo":          ".id_ed25519.swo",
		"/w/.netrc.swp":               ".netrc.swp",
		"/w/..env.swp":                "..env.swp",
		"/w/.server.key.swn":          ".server.key.swn",
		"/w/credentials.old":          "credentials.old",
		"/w/credentials.json.save":    "credentials.json.save",
		"/w/.npmrc.backup":            ".npmrc.backup",
		"/w/.pgpass.tmp":              ".pgpass.tmp",
		"/w/kubeconfig~":              "kubeconfig~",
		"/w/.kube/config.bak":         "config.bak",
		"/w/.kube/.config.swp":        ".config.swp",
		"/w/server.key.bak~":          "server.key.bak~",
		"/w/.credentials.bak.swp":     ".credentials.bak.swp",
		"/w/.ssh.bak/id_rsa":          ".ssh.bak",
		"/w/prod.tfvars.orig":         "prod.tfvars.orig",
		"/w/.bash_history.old":        ".bash_history.old",
		"/w/config/database.yml.orig": "database.yml.orig",
		"/w/infra/terraform.tfstate~": "terraform.tfstate~",
	} {
		assert.Equal(t, want, InPath(path), path)
	}
}

// expand spells out a glob's {a,b} groups (sequential, not nested).
func expand(g string) []string {
	open := strings.IndexByte(g, '{')
	if open < 0 {
		return []string{g}
	}
	end := open + strings.IndexByte(g[open:], '}')
	var out []string
	for _, w := range strings.Split(g[open+1:end], ",") {
		out = append(out, expand(g[:open]+w+g[end+1:])...)
	}
	return out
}

type expanded struct{ glob, pat string }

// expandAll spells out every glob, lower case and without "**/".
func expandAll(globs []string) []expanded {
	var out []expanded
	for _, g := range globs {
		for _, pat := range expand(strings.ToLower(g)) {
			out = append(out, expanded{g, strings.TrimPrefix(pat, "**/")})
		}
	}
	return out
}

// globMatches returns a glob that matches the path p (its last
// components, as many as the glob has), matched as ripgrep does for
// these patterns: case-insensitively, "**/" at any depth.
func globMatches(t *testing.T, globs []expanded, p string) string {
	t.Helper()
	parts := strings.Split(strings.ToLower(p), "/")
	for _, e := range globs {
		n := strings.Count(e.pat, "/") + 1
		if len(parts) < n {
			continue
		}
		ok, err := filepath.Match(e.pat, strings.Join(parts[len(parts)-n:], "/"))
		require.NoError(t, err, e.glob)
		if ok {
			return e.glob
		}
	}
	return ""
}

// globCases are names the list flags, with their backups and vim swap
// files, and readable names no glob may exclude.
func globCases() (secret, readable []string, bases int) {
	for _, pt := range list {
		switch pt.kind {
		case prefix:
			secret = append(secret, pt.name+"x", "."+pt.name+"x.swp")
		case suffix:
			secret = append(secret, "x"+pt.name, ".x"+pt.name+".swp")
		case exact, dir:
			secret = append(secret, pt.name, "."+pt.name+".swo")
		case inDir:
			secret = append(secret, pt.parent+"/"+pt.name, pt.parent+"/."+pt.name+".swn")
		case stem:
			for _, e := range configExts {
				secret = append(secret, pt.name+"."+e, pt.name+".prod."+e, "."+pt.name+"."+e+".swp")
			}
			if pt.bare {
				secret = append(secret, pt.name)
			}
		}
	}
	bases = len(secret)
	for _, n := range append([]string(nil), secret...) {
		if !strings.HasSuffix(n, ".swp") && !strings.HasSuffix(n, ".swo") && !strings.HasSuffix(n, ".swn") {
			for _, s := range backupSuffixes {
				secret = append(secret, n+s)
			}
		}
	}
	readable = []string{"pkg/secrets/secrets.go", "pkg/auth/credentials.go", "env.go", "src/environment.ts",
		"keys.go", "config/database.go", "docs/secrets.md", "src/secrets.config.ts", "src/kubeconfig.ts",
		"credentials_test.go", "main.go.bak", "README.md", "config/config.json", "hosts.yml", "keys.txt",
		"db/database.yml", "notes.txt~", "id.go", "kube/config"}
	return secret, readable, bases
}

// Every secret name, its backups and vim swap files are excluded by some
// glob, and no glob excludes the readable names: a search that excludes
// Globs opens no secret and still searches the source.
func TestGlobsCoverTheList(t *testing.T) {
	globs := Globs()
	for _, g := range globs {
		require.True(t, strings.HasPrefix(g, "**/"), g)
		require.NotContains(t, g, "{,", "ripgrep takes no empty alternative")
		require.NotContains(t, g, ",}", "ripgrep takes no empty alternative")
	}
	secret, readable, bases := globCases()
	expanded := expandAll(globs)
	for i, n := range secret {
		assert.NotEmpty(t, InPath("/w/"+n), "%s is not a secret", n)
		assert.NotEmpty(t, globMatches(t, expanded, "w/"+n), "no glob excludes %s", n)
		if i < bases {
			assert.NotEmpty(t, globMatches(t, expanded, "w/"+strings.ToUpper(n)), "no glob excludes %s", strings.ToUpper(n))
		}
	}
	for _, p := range readable {
		assert.Empty(t, InPath("/w/"+p), p)
		assert.Empty(t, globMatches(t, expanded, "w/"+p), "a glob excludes %s", p)
	}
}

// The same with ripgrep itself, as the grep tool runs it: the files left
// are exactly the readable ones.
func TestGlobsWithRipgrep(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("no rg")
	}
	root := t.TempDir()
	secret, readable, _ := globCases()
	for _, p := range append(append([]string(nil), secret...), readable...) {
		f := filepath.Join(root, "w", p)
		require.NoError(t, os.MkdirAll(filepath.Dir(f), 0o755))
		if _, err := os.Stat(f); err == nil {
			continue // a directory made for another name (.ssh)
		}
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			require.ErrorIs(t, err, syscall.EISDIR)
		}
	}
	args := []string{"--files", "--hidden", "--no-config", "--no-ignore"}
	for _, g := range Globs() {
		args = append(args, "--iglob", "!"+g)
	}
	out, err := exec.Command(rg, append(args, "--", root)...).CombinedOutput()
	require.NoError(t, err, string(out))
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		rel, err := filepath.Rel(filepath.Join(root, "w"), l)
		require.NoError(t, err)
		got = append(got, filepath.ToSlash(rel))
	}
	assert.ElementsMatch(t, readable, got)
}

func TestName(t *testing.T) {
	assert.True(t, Name("", ".env"))
	assert.True(t, Name(".kube", "config"))
	assert.True(t, Name(".KUBE", "Config"))
	assert.False(t, Name("kube", "config"))
	assert.False(t, Name("", "config"))
	assert.False(t, Name(".env", "x.go"), "the parent alone does not make a child secret; In checks every component")
	assert.True(t, Name("config", "database.yml"))
	assert.False(t, Name("db", "database.yml"))
	assert.True(t, Name("", "Server.KEY.Bak"))
	assert.False(t, Name("", "secrets"), "a secrets/ package directory stays readable")
	assert.True(t, Name("", "credentials"))
}

// Name runs in walks of large trees: it does not allocate for a lower
// case name, backups included.
func TestNameDoesNotAllocate(t *testing.T) {
	for _, n := range []string{"main.go", "server.key.bak", ".id_rsa.swp", "secrets.go", "credentials.json"} {
		assert.Zero(t, testing.AllocsPerRun(100, func() { Name("config", n) }), n)
	}
}

func BenchmarkName(b *testing.B) {
	names := []string{"main.go", "README.md", "node_modules", "server.key.bak", "secrets.go", "package.json"}
	for b.Loop() {
		for _, n := range names {
			Name("src", n)
		}
	}
}
