// Package secrets says which paths hold secrets: files and directories
// whose content an agent must never read or write without asking, however
// permissive the other rules are. The shell checker and the file
// permission decorator share this one list; Globs spells it for tools
// that take exclusion globs (ripgrep).
package secrets

import (
	"path/filepath"
	"strings"
)

type matchKind int

const (
	prefix matchKind = iota // the name starts with pattern: .env, .env.local
	suffix                  // the name ends with pattern: server.pem
	exact                   // the whole name: .netrc
	dir                     // a directory whose whole content is secret: .ssh
	inDir                   // name exact, directly inside parent: .kube/config
)

type pattern struct {
	kind   matchKind
	name   string
	parent string // for inDir
}

// list is the one list of secret names, lower case (matching ignores case:
// macOS file systems do). Suffixes keep their dot so that source files
// named after the concept (keystore.go, pem.go) stay readable.
var list = []pattern{
	{kind: prefix, name: ".env"},
	{kind: prefix, name: "id_rsa"}, {kind: prefix, name: "id_dsa"},
	{kind: prefix, name: "id_ecdsa"}, {kind: prefix, name: "id_ed25519"},
	{kind: suffix, name: ".pem"}, {kind: suffix, name: ".key"}, {kind: suffix, name: ".p12"},
	{kind: suffix, name: ".pfx"}, {kind: suffix, name: ".keystore"}, {kind: suffix, name: ".jks"},
	{kind: suffix, name: ".kdbx"}, {kind: suffix, name: ".ppk"}, {kind: suffix, name: ".ovpn"},
	{kind: suffix, name: ".tfstate"}, {kind: suffix, name: ".tfstate.backup"},
	{kind: exact, name: ".netrc"}, {kind: exact, name: ".npmrc"}, {kind: exact, name: ".pypirc"},
	{kind: exact, name: ".git-credentials"}, {kind: exact, name: "credentials"},
	{kind: exact, name: ".pgpass"}, {kind: exact, name: "kubeconfig"}, {kind: exact, name: ".htpasswd"},
	{kind: exact, name: "secrets.yml"}, {kind: exact, name: "secrets.yaml"},
	{kind: exact, name: ".vault-token"}, {kind: exact, name: ".terraformrc"}, {kind: exact, name: "terraform.rc"},
	{kind: dir, name: ".ssh"}, {kind: dir, name: ".aws"}, {kind: dir, name: ".gnupg"},
	{kind: inDir, parent: ".kube", name: "config"},
	{kind: inDir, parent: ".docker", name: "config.json"},
	{kind: inDir, parent: "gh", name: "hosts.yml"},
}

// In returns the first path component that names a secret, or "": .env*,
// private keys (*.pem, *.key, id_rsa*, id_ed25519*, id_ecdsa*, id_dsa*,
// *.ppk), key stores (*.p12, *.pfx, *.keystore, *.jks, *.kdbx), credential
// files (.netrc, .npmrc, .pypirc, .pgpass, .git-credentials, credentials,
// .htpasswd, .vault-token, .terraformrc, kubeconfig, .kube/config,
// .docker/config.json, gh/hosts.yml, secrets.yml), *.ovpn, *.tfstate, and
// anything under .ssh, .aws or .gnupg. Matching ignores case.
func In(parts []string) string {
	parent := ""
	for _, p := range parts {
		if Name(parent, p) {
			return p
		}
		parent = p
	}
	return ""
}

// Name reports whether the file or directory name, inside a directory
// named parent ("" when unknown), is a secret by the list In uses. It is
// In for one path component, without allocating, for walks of large
// trees.
func Name(parent, name string) bool {
	l := strings.ToLower(name)
	for _, pt := range list {
		var hit bool
		switch pt.kind {
		case prefix:
			hit = strings.HasPrefix(l, pt.name)
		case suffix:
			hit = strings.HasSuffix(l, pt.name)
		case exact, dir:
			hit = l == pt.name
		case inDir:
			hit = l == pt.name && strings.EqualFold(parent, pt.parent)
		}
		if hit {
			return true
		}
	}
	return false
}

// InPath is In over the components of path.
func InPath(path string) string {
	return In(strings.Split(filepath.ToSlash(path), "/"))
}

// Globs returns the list as gitignore-style globs (as ripgrep's --glob and
// --iglob take them, without the leading "!"), so that a recursive search
// can exclude every secret: "**/.env*", "**/*.pem", "**/.ssh",
// "**/.kube/config"… Use them case-insensitively (rg --iglob).
func Globs() []string {
	out := make([]string, 0, len(list))
	for _, pt := range list {
		switch pt.kind {
		case prefix:
			out = append(out, "**/"+pt.name+"*")
		case suffix:
			out = append(out, "**/*"+pt.name)
		case exact, dir:
			out = append(out, "**/"+pt.name)
		case inDir:
			out = append(out, "**/"+pt.parent+"/"+pt.name)
		}
	}
	return out
}
