// Package secrets says which paths hold secrets: files and directories
// whose content an agent must never read or write without asking, however
// permissive the other rules are. The shell checker, the file permission
// decorator and the sandbox share this one list; Globs spells it for
// tools that take exclusion globs (ripgrep). GitConfigCredential says
// which of git's configuration variables hold a credential (a token in a
// remote URL, sendemail.smtpPass), URLHasCredentials and RedactURL deal
// with URLs that carry one.
package secrets

import (
	"path/filepath"
	"strings"
	"sync"
)

type matchKind int

const (
	prefix matchKind = iota // the name starts with pattern: .env, .env.local
	suffix                  // the name ends with pattern: server.pem
	exact                   // the whole name: .netrc
	dir                     // a directory whose whole content is secret: .ssh
	inDir                   // name exact, directly inside parent: .kube/config
	// stem: the name followed by an extension that is not source code or
	// documentation (credentials.json, secrets.prod.yml, but not
	// secrets.go or secrets.md), or, when bare is set, the name alone.
	stem
)

type pattern struct {
	kind   matchKind
	name   string
	parent string // for inDir
	bare   bool   // for stem: the name alone is a secret too
}

// list is the one list of secret names, lower case (matching ignores case:
// macOS file systems do). Suffixes keep their dot so that source files
// named after the concept (keystore.go, pem.go) stay readable; stems
// leave out source and documentation extensions for the same reason
// (credentials.go, secrets.md).
var list = []pattern{
	// Environment files: .env, .env.local, .envrc, prod.env.
	{kind: prefix, name: ".env"}, {kind: suffix, name: ".env"}, {kind: exact, name: ".flaskenv"},
	// Private keys and key stores.
	{kind: prefix, name: "id_rsa"}, {kind: prefix, name: "id_dsa"},
	{kind: prefix, name: "id_ecdsa"}, {kind: prefix, name: "id_ed25519"},
	{kind: suffix, name: ".pem"}, {kind: suffix, name: ".key"}, {kind: suffix, name: ".p12"},
	{kind: suffix, name: ".pfx"}, {kind: suffix, name: ".p8"}, {kind: suffix, name: ".keystore"},
	{kind: suffix, name: ".jks"}, {kind: suffix, name: ".kdbx"}, {kind: suffix, name: ".ppk"},
	{kind: suffix, name: ".keychain"}, {kind: suffix, name: ".keychain-db"},
	// Credential and configuration files that hold passwords or tokens.
	{kind: suffix, name: ".ovpn"}, {kind: suffix, name: ".tfstate"}, {kind: suffix, name: ".tfstate.backup"},
	{kind: suffix, name: ".tfvars"}, {kind: suffix, name: ".tfvars.json"}, {kind: suffix, name: ".kubeconfig"},
	{kind: stem, name: "credentials", bare: true}, {kind: stem, name: "secrets"}, {kind: stem, name: "kubeconfig", bare: true},
	{kind: exact, name: ".netrc"}, {kind: exact, name: "_netrc"}, {kind: exact, name: ".npmrc"},
	{kind: exact, name: ".yarnrc"}, {kind: exact, name: ".yarnrc.yml"}, {kind: exact, name: ".pypirc"},
	{kind: exact, name: ".git-credentials"}, {kind: exact, name: ".pgpass"}, {kind: exact, name: ".my.cnf"},
	{kind: exact, name: ".mylogin.cnf"}, {kind: exact, name: ".htpasswd"}, {kind: exact, name: ".vault-token"},
	{kind: exact, name: ".terraformrc"}, {kind: exact, name: "terraform.rc"}, {kind: exact, name: ".s3cfg"},
	{kind: exact, name: ".boto"}, {kind: exact, name: ".dockercfg"}, {kind: exact, name: ".passwd-s3fs"},
	{kind: exact, name: "rclone.conf"}, {kind: exact, name: "settings-security.xml"},
	{kind: exact, name: "application_default_credentials.json"}, {kind: exact, name: "access_tokens.db"},
	// Shell and REPL histories: commands typed with passwords and tokens.
	{kind: exact, name: ".bash_history"}, {kind: exact, name: ".zsh_history"}, {kind: exact, name: ".zhistory"},
	{kind: exact, name: ".sh_history"}, {kind: exact, name: ".psql_history"}, {kind: exact, name: ".mysql_history"},
	{kind: exact, name: ".python_history"}, {kind: exact, name: ".node_repl_history"},
	{kind: exact, name: ".sqlite_history"}, {kind: exact, name: ".rediscli_history"}, {kind: exact, name: ".irb_history"},
	{kind: exact, name: ".dbshell"},
	// Directories whose whole content is secret.
	{kind: dir, name: ".ssh"}, {kind: dir, name: ".aws"}, {kind: dir, name: ".gnupg"}, {kind: dir, name: ".azure"},
	{kind: dir, name: ".password-store"}, {kind: dir, name: "legacy_credentials"},
	// Names that are secret only in their usual directory.
	{kind: inDir, parent: ".kube", name: "config"},
	{kind: inDir, parent: ".docker", name: "config.json"},
	{kind: inDir, parent: "gh", name: "hosts.yml"},
	{kind: inDir, parent: "github-copilot", name: "hosts.json"},
	{kind: inDir, parent: "github-copilot", name: "apps.json"},
	{kind: inDir, parent: "config", name: "database.yml"},
	{kind: inDir, parent: "config", name: "database.yaml"},
	{kind: inDir, parent: "age", name: "keys.txt"}, // sops: ~/.config/sops/age/keys.txt
	{kind: inDir, parent: "fish", name: "fish_history"},
	{kind: inDir, parent: ".config", name: "hub"},
	{kind: inDir, parent: ".m2", name: "settings.xml"},
	{kind: inDir, parent: ".gradle", name: "gradle.properties"},
}

// backupSuffixes end the names editors and people give to copies of a
// file; a copy of a secret is a secret. Vim's swap files (.swp, .swo,
// .swn) also put a dot before the name: .id_rsa.swp.
var backupSuffixes = []string{"~", ".bak", ".orig", ".old", ".backup", ".save", ".tmp", ".swp", ".swo", ".swn"}

// maxBackupSuffixes bounds how many backup suffixes Name removes
// (server.key.bak~ is two).
const maxBackupSuffixes = 3

// configExts are the extensions Globs spells for stems (a stem with
// another extension, kubeconfig.prod, is still a secret by In; callers
// that search with Globs check results with InPath).
var configExts = []string{"json", "yaml", "yml", "toml", "ini", "conf", "cfg", "xml", "properties", "txt"}

// sourceExts are extensions of source code and documentation: a stem
// followed by one of them (credentials.go, secrets.md) is readable.
var sourceExts = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, e := range strings.Fields(`go s c h cc cpp cxx hpp hh m mm cs fs fsx vb java kt kts scala groovy gradle clj cljs
		js jsx mjs cjs ts tsx mts cts vue svelte astro dart swift rs zig nim
		py pyi pyx ipynb rb rake erb php pl pm r jl lua vim el ex exs erl hrl hs ml mli elm
		sh bash zsh fish ps1 bat cmd tf hcl sql proto graphql gql
		md markdown mdx rst adoc txt html htm css scss sass less tpl tmpl j2 jinja snap`) {
		m[e] = true
	}
	delete(m, "txt") // secrets.txt holds secrets, not prose about them
	return m
})

// stemPattern is a stem as match uses it: dotted is the name and a dot.
type stemPattern struct {
	name, dotted string
	bare         bool
}

// matchTables is the list sorted by kind, as match reads it.
type matchTables struct {
	exactNames map[string]bool     // exact and dir names
	inDirNames map[string][]string // name → parents
	prefixes   []string
	suffixes   []string
	stems      []stemPattern
}

// tables are built at the first match, not in an init: every process
// linking this package (the host, before its first frame) would pay.
var tables = sync.OnceValue(func() *matchTables {
	t := &matchTables{exactNames: map[string]bool{}, inDirNames: map[string][]string{}}
	for _, pt := range list {
		switch pt.kind {
		case exact, dir:
			t.exactNames[pt.name] = true
		case inDir:
			t.inDirNames[pt.name] = append(t.inDirNames[pt.name], pt.parent)
		case prefix:
			t.prefixes = append(t.prefixes, pt.name)
		case suffix:
			t.suffixes = append(t.suffixes, pt.name)
		case stem:
			t.stems = append(t.stems, stemPattern{pt.name, pt.name + ".", pt.bare})
		}
	}
	return t
})

// In returns the first path component that names a secret, or "":
//   - environment files: .env, .env.* and .envrc (any name starting with
//     .env), *.env (prod.env), .flaskenv;
//   - private keys and key stores: *.pem, *.key, *.p8 (AuthKey_*.p8),
//     *.p12, *.pfx, *.ppk, id_rsa*, id_dsa*, id_ecdsa*, id_ed25519*,
//     *.keystore, *.jks, *.kdbx, *.keychain, *.keychain-db;
//   - credential files: .netrc, _netrc, .npmrc, .yarnrc, .yarnrc.yml,
//     .pypirc, .pgpass, .my.cnf, .mylogin.cnf, .git-credentials,
//     credentials (and credentials.json, credentials.toml, …),
//     secrets.json, secrets.yml, secrets.toml (.streamlit) and other
//     secrets.*, kubeconfig, kubeconfig.yaml and other kubeconfig.*,
//     *.kubeconfig, .kube/config, .docker/config.json, .dockercfg,
//     gh/hosts.yml, github-copilot/hosts.json and apps.json, .htpasswd,
//     .vault-token, .terraformrc, terraform.rc, *.tfvars,
//     *.tfvars.json, *.tfstate, *.ovpn, config/database.yml, .s3cfg,
//     .boto, .passwd-s3fs, rclone.conf, age/keys.txt (sops),
//     .m2/settings.xml, settings-security.xml, .gradle/gradle.properties,
//     .config/hub, gcloud's application_default_credentials.json and
//     access_tokens.db;
//   - shell and REPL histories: .bash_history, .zsh_history, .zhistory,
//     .sh_history, fish/fish_history, .psql_history, .mysql_history,
//     .python_history, .node_repl_history, .sqlite_history,
//     .rediscli_history, .irb_history, .dbshell;
//   - anything under .ssh, .aws, .gnupg, .azure, .password-store or
//     legacy_credentials (gcloud).
//
// The stems (credentials.*, secrets.*, kubeconfig.*) leave out source
// code and documentation extensions: credentials.go, secrets.md and
// kubeconfig.ts are readable. A backup of a secret is a secret: the name
// with a backup suffix removed (~, .bak, .orig, .old, .backup, .save,
// .tmp, and vim's .swp, .swo, .swn, also with the leading dot vim adds:
// server.key~, secrets.yml.bak, .env.orig, .id_rsa.swp), up to three
// suffixes. Matching ignores case.
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
// In for one path component, without allocating (unless name has upper
// case letters), for walks of large trees.
func Name(parent, name string) bool {
	l := strings.ToLower(name)
	if match(parent, l) {
		return true
	}
	swapped := false // vim added a dot before the name
	for range maxBackupSuffixes {
		base, swap := trimBackup(l)
		if base == l {
			return false
		}
		swapped = swapped || swap
		if match(parent, base) || swapped && strings.HasPrefix(base, ".") && match(parent, base[1:]) {
			return true
		}
		l = base
	}
	return false
}

// trimBackup removes one backup suffix from the lower-case name l
// (returning l itself when it has none); swap reports a vim swap file.
func trimBackup(l string) (base string, swap bool) {
	for _, s := range backupSuffixes {
		if len(l) > len(s) && strings.HasSuffix(l, s) {
			return l[:len(l)-len(s)], strings.HasPrefix(s, ".sw")
		}
	}
	return l, false
}

// match is Name without backups, for a lower-case name.
func match(parent, l string) bool {
	t := tables()
	if t.exactNames[l] {
		return true
	}
	for _, p := range t.inDirNames[l] {
		if strings.EqualFold(parent, p) {
			return true
		}
	}
	for _, p := range t.prefixes {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	for _, s := range t.suffixes {
		if strings.HasSuffix(l, s) {
			return true
		}
	}
	for _, st := range t.stems {
		if l == st.name {
			if st.bare {
				return true
			}
			continue
		}
		rest, ok := strings.CutPrefix(l, st.dotted)
		if !ok || rest == "" {
			continue
		}
		// The extension that says what the file is: secrets.go.bak is a
		// copy of source code.
		for range maxBackupSuffixes {
			rest, _ = trimBackup(rest)
		}
		if !sourceExts()[rest[strings.LastIndexByte(rest, '.')+1:]] {
			return true
		}
	}
	return false
}

// InPath is In over the components of path.
func InPath(path string) string {
	return In(strings.Split(filepath.ToSlash(path), "/"))
}

// Globs returns the list as ripgrep globs (gitignore syntax, as rg's
// --glob and --iglob take it without the leading "!", plus {a,b}
// alternation, never nested and never with an empty alternative), so that
// a recursive search can exclude every secret and its backups:
// "**/{.netrc,.npmrc,…}", "**/{.netrc,…}{~,.bak,…}", "**/*{.pem,.key,…}",
// "**/{.env,id_rsa,…}*", "**/{.kube/config,…}"… Use them
// case-insensitively (rg --iglob). A stem is spelled with the usual
// configuration extensions (credentials.json, secrets.prod.yml); a rarer
// one (kubeconfig.prod) is left to InPath, which callers apply to what the
// search returns. The names are grouped because ripgrep compiles each
// case-insensitive glob to a regular expression: the thousand globs that
// spell every backup of every name one by one cost it about 30 ms a
// search, these a few.
func Globs() []string {
	var exacts, prefixes, suffixes, inDirs, inDirSwaps, stemNames []string
	for _, pt := range list {
		switch pt.kind {
		case prefix:
			prefixes = append(prefixes, pt.name)
		case suffix:
			suffixes = append(suffixes, pt.name)
		case exact, dir:
			exacts = append(exacts, pt.name)
		case inDir:
			inDirs = append(inDirs, pt.parent+"/"+pt.name)
			inDirSwaps = append(inDirSwaps, pt.parent+"/."+pt.name)
		case stem:
			stemNames = append(stemNames, pt.name)
			if pt.bare {
				exacts = append(exacts, pt.name)
			}
		}
	}
	backups, swaps := alt(backupSuffixes), alt([]string{".swp", ".swo", ".swn"})
	exts := alt(configExts)
	return []string{
		"**/" + alt(exacts),
		"**/" + alt(exacts) + backups,
		"**/." + alt(exacts) + swaps, // vim's swap file: .NAME.swp
		"**/" + alt(prefixes) + "*",  // backups start with the name too
		"**/." + alt(prefixes) + "*" + swaps,
		"**/*" + alt(suffixes),
		"**/*" + alt(suffixes) + backups, // *.pem.swp covers .server.pem.swp
		"**/" + alt(inDirs),
		"**/" + alt(inDirs) + backups,
		"**/" + alt(inDirSwaps) + swaps,
		// secrets.yml, secrets.prod.yml, secrets.yml.bak, .secrets.yml.swp
		// ([.~] and not * after the extension: secrets.config.ts stays
		// searchable).
		"**/" + alt(stemNames) + ".*" + exts,
		"**/" + alt(stemNames) + ".*" + exts + "[.~]*",
		"**/." + alt(stemNames) + ".*" + exts + "[.~]*",
	}
}

// alt spells words as a glob alternation: {a,b,c}, or the word alone.
func alt(words []string) string {
	if len(words) == 1 {
		return words[0]
	}
	return "{" + strings.Join(words, ",") + "}"
}
