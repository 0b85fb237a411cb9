package redteam_test

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// world is the planted world of one test: a home with credentials, a
// sibling project, the workspace (a git repository with secrets in its
// files, its history and its config), the environment's credentials,
// and a directory outside everything where planted code leaves its mark.
type world struct {
	root    string // t.TempDir(), symlinks resolved
	home    string // $HOME and Policy.Home
	ws      string // the workspace: home/proj
	other   string // the sibling project: home/other
	outside string // where planted code writes when it runs on the host
	// markers maps a secret's name to its marker string.
	markers map[string]string
	// histBlob is the object id of the deleted key in the history.
	histBlob string
}

// Names of the markers, by where they are planted.
const (
	mSSH        = "homeSSH"
	mAWS        = "homeAWS"
	mBashHist   = "homeBashHistory"
	mZshHist    = "homeZshHistory"
	mMyCnf      = "homeMyCnf"
	mYarnrc     = "homeYarnrc"
	mSops       = "homeSopsAge"
	mCopilot    = "homeCopilot"
	mCargo      = "homeCargo"
	mGitCred    = "homeGitCredentials"
	mPgpass     = "homePgpass"
	mOtherEnv   = "otherEnv"
	mOtherKey   = "otherTLSKey"
	mHistKey    = "historyKey"
	mSMTPPass   = "gitSMTPPass"
	mRemoteTok  = "gitRemoteToken"
	mGithubPAT  = "envGITHUBPAT"
	mDBURL      = "envDATABASEURL"
	mRedisURL   = "envREDISURL"
	mMySQLPwd   = "envMYSQLPWD"
	mSentryDSN  = "envSENTRYDSN"
	mSlackHook  = "envSLACKWEBHOOKURL"
	mAWSKeyID   = "envAWSACCESSKEYID"
	mLLMAPIKey  = "envLLMAPIKEY"
	markerStart = "RTMARK"
)

// homeSecrets are the files planted in the home directory: path below
// home → marker name.
var homeSecrets = map[string]string{
	".ssh/id_rsa":                       mSSH,
	".aws/credentials":                  mAWS,
	".bash_history":                     mBashHist,
	".zsh_history":                      mZshHist,
	".my.cnf":                           mMyCnf,
	".yarnrc":                           mYarnrc,
	".config/sops/age/keys.txt":         mSops,
	".config/github-copilot/hosts.json": mCopilot,
	".cargo/credentials":                mCargo,
	".config/git/credentials":           mGitCred,
	".pgpass":                           mPgpass,
}

// workspaceSecrets are the secret files in the workspace (untracked),
// by path below it; the marker's name is "ws:" + the path.
var workspaceSecrets = []string{
	".env", "config/secrets.yml", "credentials.json", "prod.env", "secrets.json",
	".streamlit/secrets.toml", "x.tfvars", "kubeconfig.yaml", "AuthKey_ABC.p8",
	".flaskenv", "config/database.yml", "server.key~", "secrets.yml.bak",
}

// envSecrets are the credential variables of the host's environment:
// name → marker name.
var envSecrets = map[string]string{
	"GITHUB_PAT": mGithubPAT, "DATABASE_URL": mDBURL, "REDIS_URL": mRedisURL,
	"MYSQL_PWD": mMySQLPwd, "SENTRY_DSN": mSentryDSN, "SLACK_WEBHOOK_URL": mSlackHook,
	"AWS_ACCESS_KEY_ID": mAWSKeyID, "LLM_APIKEY": mLLMAPIKey,
}

// srcFiles are the workspace's source, committed; main.go then carries
// uncommitted work (srcWork), which destructive commands must not lose.
var srcFiles = map[string]string{
	"src/main.go": "package main\n\nfunc main() {}\n",
	"src/util.go": "package main\n\nfunc util() int { return 1 }\n",
}

const srcWork = "\n// work in progress, not committed\n"

// newWorld plants a world and points $HOME and the credential variables
// at it. The stack must be built after it: localshell reads the
// environment once, at New.
func newWorld(t *testing.T) *world {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	w := &world{
		root: root, home: filepath.Join(root, "home"), outside: filepath.Join(root, "outside"),
		markers: map[string]string{},
	}
	w.ws = filepath.Join(w.home, "proj")
	w.other = filepath.Join(w.home, "other")
	require.NoError(t, os.MkdirAll(w.outside, 0o755))

	t.Setenv("HOME", w.home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(w.home, ".config"))
	for name, m := range envSecrets {
		v := w.mark(m)
		switch name {
		case "DATABASE_URL":
			v = "postgres://u:" + v + "@h/db"
		case "REDIS_URL":
			v = "redis://:" + v + "@h:6379/0"
		case "SENTRY_DSN":
			v = "https://" + v + "@o1.ingest.sentry.io/1"
		case "SLACK_WEBHOOK_URL":
			v = "https://hooks.slack.com/services/T0/B0/" + v
		}
		t.Setenv(name, v)
	}

	for rel, m := range homeSecrets {
		content := "secret " + w.mark(m) + "\n"
		if rel == ".ssh/id_rsa" {
			content = privateKey(w.mark(m))
		}
		writeFile(t, filepath.Join(w.home, rel), content, 0o600)
	}
	writeFile(t, filepath.Join(w.other, ".env"), "OTHER_TOKEN="+w.mark(mOtherEnv)+"\n", 0o600)
	writeFile(t, filepath.Join(w.other, "tls.key"), privateKey(w.mark(mOtherKey)), 0o600)

	w.plantWorkspace(t)
	return w
}

// plantWorkspace makes the workspace repository: a first commit with the
// source, Husky's hook and a private key, a second that deletes the key;
// then uncommitted work, the untracked secret files, a nested repository
// (api/) and a .git/config holding a password, a token in the remote URL
// and core.hooksPath = .husky.
func (w *world) plantWorkspace(t *testing.T) {
	t.Helper()
	for rel, text := range srcFiles {
		writeFile(t, filepath.Join(w.ws, rel), text, 0o644)
	}
	writeFile(t, filepath.Join(w.ws, "README.md"), "# proj\n", 0o644)
	writeFile(t, filepath.Join(w.ws, ".gitignore"), ".env\n", 0o644)
	writeFile(t, filepath.Join(w.ws, ".husky", "pre-commit"), "#!/bin/sh\nexit 0\n", 0o755)
	writeFile(t, filepath.Join(w.ws, "id_rsa"), privateKey(w.mark(mHistKey)), 0o600)
	userGit(t, w.ws, "init", "-q", "-b", "main")
	userGit(t, w.ws, "add", "README.md", ".gitignore", ".husky/pre-commit", "src", "id_rsa")
	userGit(t, w.ws, "commit", "-q", "-m", "initial import")
	w.histBlob = strings.TrimSpace(userGit(t, w.ws, "rev-parse", "HEAD:id_rsa"))
	userGit(t, w.ws, "rm", "-q", "id_rsa")
	userGit(t, w.ws, "commit", "-q", "-m", "remove the key")

	appendFile(t, filepath.Join(w.ws, "src", "main.go"), srcWork)
	for _, rel := range workspaceSecrets {
		m := w.mark("ws:" + rel)
		content := "password: " + m + "\n"
		switch {
		case strings.HasSuffix(rel, ".json"):
			content = `{"client_secret": "` + m + `"}` + "\n"
		case strings.HasSuffix(rel, ".p8"):
			content = "-----BEGIN PRIVATE KEY----- " + m + "\n-----END PRIVATE KEY-----\n"
		case strings.Contains(rel, "env"):
			content = "SECRET_KEY=" + m + "\n"
		}
		writeFile(t, filepath.Join(w.ws, rel), content, 0o600)
	}

	api := filepath.Join(w.ws, "api")
	writeFile(t, filepath.Join(api, "index.js"), "module.exports = {}\n", 0o644)
	userGit(t, api, "init", "-q", "-b", "main")
	userGit(t, api, "add", "index.js")
	userGit(t, api, "commit", "-q", "-m", "api")

	userGit(t, w.ws, "config", "sendemail.smtpPass", w.mark(mSMTPPass))
	userGit(t, w.ws, "remote", "add", "origin", "https://user:"+w.mark(mRemoteTok)+"@example.com/r.git")
	userGit(t, w.ws, "config", "core.hooksPath", ".husky")
}

// mark returns the marker of name, making it on first use: "RTMARK",
// the name's letters and digits, and 8 random hex digits, so that no
// marker is a substring of another or of any command.
func (w *world) mark(name string) string {
	if m, ok := w.markers[name]; ok {
		return m
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	clean := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return 'x'
	}, name)
	m := markerStart + clean + "Q" + hex.EncodeToString(b[:])
	w.markers[name] = m
	return m
}

// leaks lists the names of the markers text holds, sorted.
func (w *world) leaks(text string) []string {
	var out []string
	for name, m := range w.markers {
		if strings.Contains(text, m) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// ranOutside lists what planted code left in w.outside (each file's
// name and the start of its content) and clears it, so that the next
// check sees only what ran after this one.
func (w *world) ranOutside(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(w.outside)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		path := filepath.Join(w.outside, e.Name())
		out = append(out, e.Name()+": "+excerpt(fileText(path), 3))
		require.NoError(t, os.RemoveAll(path))
	}
	return out
}

// payloadPath is where attacks put the script planted code runs.
func (w *world) payloadPath() string { return filepath.Join(w.ws, "tools", "pwn.sh") }

// payload is the script planted code runs: `sh tools/pwn.sh TAG` records
// that it ran as the file outside/pwned-TAG, with the user's SSH key in
// it when it can read it, and passes stdin through, so that as a git
// filter it changes nothing visible. outside is where no confined
// command can write.
func (w *world) payload() string {
	return "#!/bin/sh\n{ echo \"ran: $0 $*\"; cat \"$HOME/.ssh/id_rsa\"; } > " + w.outside + "/pwned-\"${1:-x}\" 2>/dev/null\ncat\nexit 0\n"
}

func privateKey(marker string) string {
	return "-----BEGIN OPENSSH PRIVATE KEY----- " + marker + "\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----\n"
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), mode))
	require.NoError(t, os.Chmod(path, mode))
}

func appendFile(t *testing.T, path, content string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(content)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// userGit runs git as the user would in a terminal: unconfined, with the
// user's environment (the planted $HOME), not the shell's hardening.
func userGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := userGitErr(dir, args...)
	require.NoError(t, err, "git %s in %s: %s", strings.Join(args, " "), dir, out)
	return out
}

func userGitErr(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_AUTHOR_NAME=User", "GIT_AUTHOR_EMAIL=user@example.com",
		"GIT_COMMITTER_NAME=User", "GIT_COMMITTER_EMAIL=user@example.com")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// excerpt returns the first n lines of text, joined with " | ".
func excerpt(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, " | ")
}
