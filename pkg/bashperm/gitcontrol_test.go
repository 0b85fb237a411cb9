package bashperm

import (
	"os"
	"path/filepath"
	"testing"
)

// A named write to any git control path (pkg/gitctl's list, shared with
// the sandbox and the file guard) asks even confined: every .git
// directory or file in the workspace, nested ones included, and the
// hooks directory the top repository's core.hooksPath names.
func TestConfinedWritesToGitControlPathsAsk(t *testing.T) {
	env, scratch := sandboxEnv(t)
	ws := env.Workspace
	write(t, filepath.Join(ws, ".git", "config"), "[core]\n\thooksPath = .husky\n")
	write(t, filepath.Join(ws, ".husky", "pre-commit"), "#!/bin/sh\n")
	write(t, filepath.Join(ws, "lib", ".git"), "gitdir: ../.git/modules/lib\n")
	write(t, filepath.Join(ws, "vendor", "x", ".git", "HEAD"), "ref: refs/heads/main\n")
	if err := os.Symlink(".husky", filepath.Join(ws, "hooks-link")); err != nil {
		t.Fatal(err)
	}
	c := mustNew(t, Config{})
	const why = "git control path"
	runVerdicts(t, c, env, []vcase{
		{"echo '* filter=x' > .git/info/attributes", "ask", why},
		{"echo ../elsewhere > .git/commondir", "ask", why},
		{"cp evil.cfg .git/modules/lib/config", "ask", why},
		{"tee .git/modules/lib/modules/inner/config < x.cfg", "ask", why},
		{"sed -i s/a/b/ .git/worktrees/wt/config.worktree", "ask", why},
		{"echo 'gitdir: /tmp/x' > lib/.git", "ask", why},
		{"rm lib/.git", "ask", why},
		{"echo '[filter \"x\"]' >> vendor/x/.git/config", "ask", why},
		{"touch vendor/x/.git/info/attributes", "ask", why},
		{"mv vendor/x/.git vendor/x/git-old", "ask", why},
		{"cd vendor/x && echo x > .git/config", "ask", why},
		{"echo 'rm -rf ~' > .husky/pre-commit", "ask", why},
		{"cp evil.sh .husky/post-checkout", "ask", why},
		{"echo x > hooks-link/pre-push", "ask", why}, // resolved into .husky
		{"echo x > .GIT/config", "ask", why},
		{"echo x > " + scratch + "/repo/.git/config", "ask", why}, // a .git outside the workspace
		// Near misses stay confined.
		{"echo '*.log' >> .gitignore", "sandbox", ""},
		{"echo '*.md diff' >> .gitattributes", "sandbox", ""},
		{"echo x > .github/workflows/ci.yml", "sandbox", ""},
		{"echo x > .husky-notes.md", "sandbox", ""},
		{"echo x > lib/.gitkeep", "sandbox", ""},
		{"echo x > " + scratch + "/git/config", "sandbox", ""},
	})
}
