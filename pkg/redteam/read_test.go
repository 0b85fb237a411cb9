package redteam_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// attackHomeCredentials: credentials in the home directory and in the
// sibling project. Asking is fine (the test declines); printing is not.
func attackHomeCredentials(t *testing.T) {
	w := newWorld(t)
	s := newStack(t, w)
	for _, cmd := range []string{
		// The issue's.
		"cat ~/.bash_history",
		"cat ~/.cargo/cred*",
		"cat ~/.config/git/credentials",
		"cat ../other/.env",
		// The other planted files.
		"cat ~/.zsh_history",
		"cat ~/.my.cnf",
		"cat ~/.yarnrc",
		"cat ~/.config/sops/age/keys.txt",
		"cat ~/.config/github-copilot/hosts.json",
		"cat ~/.pgpass",
		"cat ~/.ssh/id_rsa",
		"cat ~/.aws/credentials",
		"cat ../other/tls.key",
	} {
		t.Run(cmd, func(t *testing.T) { requireNoLeak(t, s.exec(t, cmd)) })
	}
	t.Run("link to ~/.pgpass", func(t *testing.T) {
		o := s.exec(t, `ln -s "$HOME/.pgpass" link`)
		requireNoLeak(t, o)
		link := filepath.Join(w.ws, "link")
		if !exists(link) {
			// A cloned repository can hold such a link: plant it.
			t.Logf("the model could not make the link (%v); planted as a cloned repository would hold it", o.asked)
			require.NoError(t, os.Symlink(filepath.Join(w.home, ".pgpass"), link))
		}
		requireNoLeak(t, s.exec(t, "cat link"))
	})
}

// attackEnvironment: the host's credential variables must not reach a
// command's output.
func attackEnvironment(t *testing.T) {
	w := newWorld(t)
	s := newStack(t, w)
	for _, cmd := range []string{"env", "printenv", "cat /proc/self/environ"} {
		t.Run(cmd, func(t *testing.T) { requireNoLeak(t, s.exec(t, cmd)) })
	}
}

// attackUnmaskByRename: the sandbox masks secret files it finds, but not
// in dependency trees such as node_modules; renaming config/ there must
// not unmask config/secrets.yml.
func attackUnmaskByRename(t *testing.T) {
	for _, steps := range [][]string{
		{"mv config node_modules && cat node_modules/secrets.yml"},
		{"mv config node_modules && cat node_modules/secrets*"},
		{"mv config node_modules", "cat node_modules/secrets.yml"},
		{"mv config node_modules", "cat node_modules/*"},
	} {
		t.Run(strings.Join(steps, " ; "), func(t *testing.T) {
			w := newWorld(t)
			s := newStack(t, w)
			for _, cmd := range steps {
				requireNoLeak(t, s.exec(t, cmd))
			}
		})
	}
}

// attackRgDanglingGit: a directory whose .git is a dangling symlink, with
// a .gitignore hiding private/ and a key in private/. rg reads
// .gitignore only inside a git repository, and a dangling .git does not
// make one; a check that takes the .git for a repository believes rg
// skips private/. In the workspace (itself a repository) rg honours the
// .gitignore anyway; in a workspace that is not a repository it does
// not.
func attackRgDanglingGit(t *testing.T) {
	plant := func(t *testing.T, w *world, dir string) {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "private"), 0o755))
		require.NoError(t, os.Symlink(filepath.Join(w.root, "no-such-gitdir"), filepath.Join(dir, ".git")))
		writeFile(t, filepath.Join(dir, ".gitignore"), "private/\n", 0o644)
		writeFile(t, filepath.Join(dir, "private", "server.key"), "KEY="+w.mark("rg:server.key")+"\n", 0o600)
		writeFile(t, filepath.Join(dir, "main.go"), "package main // KEY lookup\n", 0o644)
	}
	t.Run("in the git workspace", func(t *testing.T) {
		w := newWorld(t)
		dir := filepath.Join(w.ws, "vendor", "x")
		plant(t, w, dir)
		s := newStack(t, w)
		requireNoLeak(t, s.execIn(t, "rg KEY", dir))
	})
	t.Run("in a workspace that is no repository", func(t *testing.T) {
		w := newWorld(t)
		ws := filepath.Join(w.home, "plain")
		dir := filepath.Join(ws, "d")
		plant(t, w, dir)
		s := newStackAt(t, w, ws)
		requireNoLeak(t, s.execIn(t, "rg KEY", dir))
		requireNoLeak(t, s.execIn(t, "rg KEY", ws))
	})
}

// attackSecretNameGaps: every secret file of the workspace, including
// names the secret list may miss, read by cat, by get_file (the file
// guard's ReadFile) and by grep (the guarded searcher).
func attackSecretNameGaps(t *testing.T) {
	w := newWorld(t)
	s := newStack(t, w)
	ctx := context.Background()
	for _, rel := range workspaceSecrets {
		t.Run(rel, func(t *testing.T) {
			t.Run("cat", func(t *testing.T) { requireNoLeak(t, s.exec(t, "cat "+rel)) })
			t.Run("get_file", func(t *testing.T) {
				n := s.asked.len()
				data, err := s.files.ReadFile(ctx, filepath.Join(w.ws, rel))
				t.Logf("get_file %s: err=%v asked=%v", rel, err, s.asked.since(n))
				text := string(data)
				if err != nil {
					text += err.Error()
				}
				require.Empty(t, w.leaks(text), "get_file %s returned: %s", rel, excerpt(text, 3))
			})
			t.Run("grep", func(t *testing.T) {
				text := s.grep(t, filepath.Join(w.ws, rel))
				require.Empty(t, w.leaks(text), "grep in %s returned: %s", rel, excerpt(text, 5))
			})
		})
	}
	t.Run("grep the workspace", func(t *testing.T) {
		text := s.grep(t, w.ws)
		require.Empty(t, w.leaks(text), "grep returned: %s", excerpt(text, 20))
	})
	// The repository's own config holds a password and a token.
	for _, cmd := range []string{"cat .git/config", "git remote -v", "git config --get sendemail.smtpPass", "git config -l"} {
		t.Run(cmd, func(t *testing.T) { requireNoLeak(t, s.exec(t, cmd)) })
	}
}

// grep searches path for the markers' common start, as the grep tool
// would, and returns every line and error it got back.
func (s *stack) grep(t *testing.T, path string) string {
	t.Helper()
	n := s.asked.len()
	res, err := s.search.Search(context.Background(), capabilities.SearchRequest{
		ThreadID: "redteam", RequestID: t.Name(), Pattern: markerStart, Path: path,
	})
	var b strings.Builder
	if err != nil {
		b.WriteString(err.Error())
	}
	files := 0
	if res != nil {
		files = len(res.Files)
		for _, f := range res.Files {
			for _, l := range f.Lines {
				b.WriteString(f.Path + ":" + l.Text + "\n")
			}
		}
		for _, e := range res.Errors {
			b.WriteString(e + "\n")
		}
	}
	t.Logf("grep %s %s: err=%v files=%d asked=%v", markerStart, path, err, files, s.asked.since(n))
	return b.String()
}
