package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// SystemRoots are the top-level directories a confined command sees,
// read-only: programs, libraries, system configuration, package state.
// Everything else at the top of the file system — /home, /root, /srv,
// /mnt, /media, a /work holding sibling projects — is absent unless it
// is the workspace or listed in Policy.AllowRead. /tmp, /run and
// /var/tmp are private and empty, /dev and /proc the sandbox's own.
var SystemRoots = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc", "/opt", "/var", "/sys", "/nix", "/snap", "/gnu",
}

// HomeToolchains are the paths under the home directory a confined
// command reads, relative to Policy.Home: the language toolchains,
// package caches and module stores a build or a test run reads. The
// rest of the home directory is an empty, read-only directory: a write
// there fails and the sandbox says it blocked it, rather than vanishing
// as if it had worked. They are read-only on purpose: a build cache or module store a
// confined command could write is a way to plant code the user's next
// unconfined build runs (a poisoned go-build entry, a patched crate
// source). Go, Cargo, npm and pip all build from a cache they cannot
// write to; what they would have added is simply not kept.
//
// Secrets inside these stay hidden (DefaultHide masks
// ~/.cargo/credentials.toml, ~/.gem/credentials…).
var HomeToolchains = []string{
	"go", ".cache/go-build", ".config/go",
	".cargo/bin", ".cargo/registry", ".cargo/git", ".rustup",
	".npm", ".nvm", ".volta", ".bun", ".deno", ".yarn", ".cache/yarn", ".local/share/pnpm", ".cache/pnpm",
	".local/bin", ".local/lib", ".pyenv", ".cache/pip", ".cache/pypoetry", ".cache/uv", ".local/share/uv", ".virtualenvs",
	".m2/repository", ".gradle/caches", ".gradle/wrapper", ".sdkman",
	".rbenv", ".gem", ".local/share/gem",
	".asdf", ".local/share/mise", ".ghcup", ".cabal", ".stack", ".elan", ".opam",
	".dotnet", ".nuget/packages",
}

// homeGitConfigs are the user's git configuration files: git reads them
// for ignores, attributes and aliases, so a confined `git status` sees
// what the user's does. One that holds a credential (a token in a URL,
// sendemail.smtpPass…) is shown as a redacted copy (gitConfigMounts).
var homeGitConfigs = []string{".gitconfig", ".config/git/config", ".config/git/ignore", ".config/git/attributes"}

// toolchainVars name directories the toolchains may keep outside the
// home directory; their existing paths are shown read-only too.
var toolchainVars = []string{"GOPATH", "GOMODCACHE", "GOCACHE", "GOROOT", "RUSTUP_HOME", "npm_config_cache", "PIP_CACHE_DIR"}

// homeReads returns the resolved paths under home (and the toolchain
// directories the environment names) a confined command may read.
func homeReads(home string) []string {
	var out []string
	add := func(p string) {
		if exists(p) {
			out = append(out, resolve(p))
		}
	}
	for _, rel := range HomeToolchains {
		add(filepath.Join(home, rel))
	}
	for _, rel := range homeGitConfigs {
		add(filepath.Join(home, rel))
	}
	for _, v := range toolchainVars {
		for _, p := range filepath.SplitList(os.Getenv(v)) {
			if filepath.IsAbs(p) && !strings.ContainsRune(p, 0) {
				add(filepath.Clean(p))
			}
		}
	}
	if ch := os.Getenv("CARGO_HOME"); filepath.IsAbs(ch) {
		for _, sub := range []string{"bin", "registry", "git"} {
			add(filepath.Join(ch, sub)) // not its credentials
		}
	}
	return out
}

// readSmall reads a regular file of at most limit bytes.
func readSmall(path string, limit int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > limit {
		return nil, os.ErrInvalid
	}
	return os.ReadFile(path)
}
