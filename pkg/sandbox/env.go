package sandbox

import "strings"

// EnvAllow names the environment variables a confined command keeps:
// where programs are and who runs them, language and terminal, and the
// toolchains' own settings. Everything else the editor's environment
// holds — API keys, DATABASE_URL with its password, GITHUB_PAT,
// SENTRY_DSN, the editor's socket — is dropped: a name cannot tell a
// credential from a setting, so the list says what is kept instead.
// Policy.Env adds names (the sandbox.env option).
var EnvAllow = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "PWD", "SHLVL", "TZ", "TMPDIR",
	"LANG", "LANGUAGE", "TERM", "COLORTERM", "COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "CI",
	// What the shell hardens (pagers, editors, prompts) and git's
	// configuration overrides (GIT_CONFIG_COUNT, _KEY_n, _VALUE_n).
	"PAGER", "GIT_PAGER", "MANPAGER", "GIT_EDITOR", "EDITOR", "VISUAL",
	"GIT_TERMINAL_PROMPT", "GIT_ASKPASS", "SSH_ASKPASS", "GCM_INTERACTIVE", "GIT_CONFIG_COUNT",
	"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
	// Toolchains.
	"GOPATH", "GOROOT", "GOFLAGS", "GOCACHE", "GOMODCACHE", "GOENV", "GOTOOLCHAIN", "GOPROXY",
	"GOPRIVATE", "GONOPROXY", "GONOSUMDB", "GOSUMDB", "GOEXPERIMENT", "GODEBUG", "GOOS", "GOARCH", "GOWORK",
	"CGO_ENABLED", "CC", "CXX", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "PKG_CONFIG_PATH", "LD_LIBRARY_PATH",
	"CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "RUSTFLAGS", "CARGO_TARGET_DIR", "RUST_BACKTRACE", "RUST_LOG",
	"JAVA_HOME", "GRADLE_USER_HOME", "MAVEN_HOME", "M2_HOME",
	"NODE_PATH", "NVM_DIR", "NVM_BIN", "VOLTA_HOME", "BUN_INSTALL", "DENO_DIR", "PNPM_HOME",
	"PYTHONPATH", "PYTHONHOME", "PYTHONDONTWRITEBYTECODE", "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV",
	"PYENV_ROOT", "PYENV_VERSION", "PIPX_HOME", "UV_CACHE_DIR", "POETRY_HOME",
	"GEM_HOME", "GEM_PATH", "RBENV_ROOT", "RBENV_VERSION", "BUNDLE_PATH",
	"DOTNET_ROOT", "DOTNET_CLI_TELEMETRY_OPTOUT", "ASDF_DIR", "ASDF_DATA_DIR", "MISE_DATA_DIR",
}

// envPrefixes are kept by prefix: the locale's categories and git's
// numbered configuration overrides.
var envPrefixes = []string{"LC_", "GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"}

// Environ returns the entries of env (KEY=VALUE) a confined command
// keeps: EnvAllow, the LC_* and GIT_CONFIG_KEY_n/VALUE_n families, and
// the names in p.Env. Order is kept.
func (p Policy) Environ(env []string) []string {
	keep := make(map[string]bool, len(EnvAllow)+len(p.Env))
	for _, k := range EnvAllow {
		keep[k] = true
	}
	for _, k := range p.Env {
		keep[k] = true
	}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if keep[k] || hasAnyPrefix(k, envPrefixes) {
			out = append(out, kv)
		}
	}
	return out
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
