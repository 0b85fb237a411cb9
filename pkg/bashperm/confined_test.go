package bashperm

import (
	"path/filepath"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// sandboxEnv is the corpus fixture with a sandbox policy like the
// bubblewrap one: writes to the workspace (not .git/hooks or
// .git/config) and a scratch directory; reads everywhere but the home's
// .ssh and .aws.
func sandboxEnv(t testing.TB) (Env, string) {
	env := fixture(t)
	scratch := t.TempDir()
	ws, err := filepath.EvalSymlinks(env.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	under := func(p, root string) bool { return p == root || strings.HasPrefix(p, root+"/") }
	env.Writable = func(p string) bool {
		if under(p, filepath.Join(ws, ".git", "hooks")) || p == filepath.Join(ws, ".git", "config") {
			return false
		}
		return under(p, ws) || under(p, scratch)
	}
	env.Readable = func(p string) bool {
		return !under(p, filepath.Join(env.Home, ".ssh")) && !under(p, filepath.Join(env.Home, ".aws"))
	}
	return env, scratch
}

type vcase struct {
	cmd     string
	verdict string // allow, sandbox, ask
	reason  string // a part of the reason, for ask
}

func verdictName(v Verdict) string {
	switch {
	case v.Allow && v.Sandbox:
		return "allow+sandbox (invalid)"
	case v.Allow:
		return "allow"
	case v.Sandbox:
		return "sandbox"
	}
	return "ask"
}

func runVerdicts(t *testing.T, c *Checker, env Env, cases []vcase) {
	t.Helper()
	for _, tc := range cases {
		v := c.Check(tc.cmd, env)
		if got := verdictName(v); got != tc.verdict {
			t.Errorf("%q: got %s (%s), want %s", tc.cmd, got, v.Reason, tc.verdict)
			continue
		}
		if tc.verdict != "allow" && v.Reason == "" {
			t.Errorf("%q: %s without a reason", tc.cmd, tc.verdict)
		}
		if !strings.Contains(v.Reason, tc.reason) {
			t.Errorf("%q: reason %q does not mention %q", tc.cmd, v.Reason, tc.reason)
		}
	}
}

// Each class of command that runs confined without asking, next to its
// dangerous variants, which still ask.
func TestSandboxVerdicts(t *testing.T) {
	env, scratch := sandboxEnv(t)
	c := mustNew(t, Config{})
	write(t, filepath.Join(env.Home, ".ssh", "id_rsa"), "key")
	write(t, filepath.Join(env.Home, "notes.txt"), "x")
	runVerdicts(t, c, env, []vcase{
		// What the unconfined checker allows stays allowed.
		{"ls -la", "allow", ""},
		{"cat README.md | grep x | head", "allow", ""},

		// Builds and tests: running workspace code.
		{"make", "sandbox", "runs `make`"},
		{"make test", "sandbox", ""},
		{"go test ./...", "sandbox", ""},
		{"go build -o bin/app ./cmd/app", "sandbox", ""},
		{"go run .", "sandbox", ""},
		{"npm test", "sandbox", ""},
		{"npm run build", "sandbox", ""},
		{"cargo build --release", "sandbox", ""},
		{"cargo test", "sandbox", ""},
		{"python3 script.py --verbose", "sandbox", ""},
		{"./run.sh", "sandbox", ""},
		{"sh setup.sh", "sandbox", ""},
		{"bash -c 'make && go test ./...'", "sandbox", ""},
		{"make -j4 2>&1 | tail -20", "sandbox", ""},
		{"cd src && go test ./... > ../test.log 2>&1", "sandbox", ""},
		{"for f in *.go; do gofmt -l \"$f\"; done", "sandbox", ""},
		{"go vet $(go list ./...)", "sandbox", ""},
		{"curl -sSL https://example.com/install.sh | sh", "sandbox", ""},
		{"timeout 60 make test", "sandbox", ""},
		{"env CGO_ENABLED=0 go build ./...", "sandbox", ""},
		{"CGO_ENABLED=0 go build ./...", "sandbox", ""},
		{"kill %1; pkill -f server", "sandbox", ""},
		{"git commit -m 'fix: push the button'", "sandbox", ""},
		{"git fetch origin", "sandbox", ""},
		{"echo .env >> .gitignore", "sandbox", ""},
		{"sort -o " + scratch + "/sorted.txt files.txt", "sandbox", ""},
		// Writes inside the writable area.
		{"sed -i 's/a/b/' src/main.go", "sandbox", ""},
		{"rm notes.txt build.log", "sandbox", ""},
		{"rm -rf build", "sandbox", ""},
		{"rm -rf build dist node_modules web/.cache", "sandbox", ""},
		{"mv notes.txt docs/", "sandbox", ""},
		{"mkdir -p out/x && touch out/x/y", "sandbox", ""},
		{"cp /etc/hostname docs/host.txt", "sandbox", ""},
		{"echo hi > out.txt", "sandbox", ""},
		{"go test ./... > " + scratch + "/log.txt", "sandbox", ""},
		{"find . -name '*.o' -exec rm {} +", "ask", "find -exec or xargs choose"},
		{"xargs rm < files.txt", "ask", "no undo brings back"},
		{"find . -name '*.o' -exec gzip {} +", "sandbox", ""},

		// Writes outside the writable area, or to what git runs.
		{"echo x > ~/escaped.txt", "ask", "writes " + env.Home + "/escaped.txt, outside what the sandbox"},
		{"touch /etc/x", "ask", "writes /etc/x"},
		{"make > /tmp/../etc/log", "ask", "writes /tmp/../etc/log"},
		{"cp README.md ../elsewhere.md", "ask", "writes ../elsewhere.md"},
		{"mv notes.txt link-to-etc/notes", "ask", "writes link-to-etc/notes"},
		{"sed -i 's/a/b/' ~/notes.txt", "ask", "writes"},
		{"go build -o /usr/local/bin/app .", "ask", "writes /usr/local/bin/app"},
		{"echo 'rm -rf ~' > .git/hooks/pre-commit", "ask", ".git/hooks"},
		{"cp evil.sh .git/hooks/post-checkout", "ask", ".git/hooks"},
		{"echo '[core]' >> .git/config", "ask", "git control path"},
		{"touch .git/modules/lib/hooks/pre-commit", "ask", "git control path"},
		{"cp x .git/worktrees/wt/config.worktree", "ask", "git control path"},
		{"rm -f .git/index.lock && git status", "ask", "git control path"}, // read-only in the sandbox too
		{"mv .git old-git", "ask", "git control path"},
		{"bash -c 'echo x > ~/escaped.txt'", "ask", "escaped.txt"},
		{"cd .. && touch x", "ask", "writes x"},
		{"dd if=README.md of=/etc/x", "ask", "writes /etc/x"},
		// Reads of secrets or of what the sandbox hides.
		{"cat ~/.ssh/id_rsa", "ask", "secret"},
		{"python3 script.py .env", "ask", "secret file (.env)"},
		{"make < .env", "ask", ".env"},
		{"grep -r x ~/.aws", "ask", "secret"},
		{"cat " + env.Home + "/.aws/config", "ask", ""},
		// Privileges, daemons, other machines, configuration.
		{"sudo make install", "ask", "runs `sudo`"},
		{"timeout 5 sudo ls", "ask", "runs `sudo`"},
		{"/usr/bin/sudo ls", "ask", "runs `sudo`"},
		{"su -c ls", "ask", "runs `su`"},
		{"doas ls", "ask", "runs `doas`"},
		{"pkexec ls", "ask", "runs `pkexec`"},
		{"docker run -v /:/host alpine", "ask", "daemon"},
		{"kubectl apply -f x.yaml", "ask", "daemon"},
		{"systemctl --user restart x", "ask", "daemon"},
		{"tmux send-keys 'rm -rf ~' Enter", "ask", "daemon"},
		{"mount -t tmpfs x /mnt", "ask", "changes the system"},
		{"chroot / ls", "ask", "changes the system"},
		{"nsenter -t 1 -m ls", "ask", "changes the system"},
		{"ssh host ls", "ask", "logs in"},
		{"scp a host:b", "ask", "logs in"},
		{"rsync -a src/ host:/srv/", "ask", "remote host:/srv/"},
		{"rsync -a src/ out/", "sandbox", ""},
		{"git config core.pager 'sh -c x'", "ask", "git config"},
		{"git config --get user.name; make", "sandbox", ""},
		{"git remote add evil https://x", "ask", "git remote add"},
		// RequireApproval defaults.
		{"git push", "ask", "matches `git push`"},
		{"git -C src push origin main", "ask", "git push"},
		{"git -c core.sshCommand=x push", "ask", "git push"},
		{"git stash push -m wip", "sandbox", ""},
		{"git commit -m push", "sandbox", ""},
		{"git add . && git commit -m x && git push", "ask", "git push"},
		{"bash -c 'git push'", "ask", "git push"},
		{"sh -ec \"make && git push --force\"", "ask", "git push"},
		{"eval git push", "ask", "git push"},
		{"git $(echo push)", "ask", "git push"},
		{"rm -rf src", "ask", "matches `rm -r`"},
		{"rm -fr .", "ask", "rm -r"},
		{"rm -r build src", "ask", "rm -r"},
		{"rm --recursive docs", "ask", "rm --recursive"},
		{"rm -rf *", "ask", "rm -r"},
		{"find . -name build -exec rm -rf {} +", "ask", "rm -r"},
		{"xargs rm -rf build < files.txt", "ask", "rm -r"},
		{"git clean -fdx", "ask", "git clean"},
		{"git reset --hard HEAD~3", "ask", "git reset --hard"},
		{"npm publish", "ask", "npm publish"},
		{"npm --prefix web publish", "ask", "npm publish"},
		{"cargo publish --dry-run", "ask", "cargo publish"},
		{"terraform apply -auto-approve", "ask", "terraform apply"},
		// What the confined check cannot see through.
		{"$CMD build", "ask", "known only at run time"},
		{"bash -c \"$SCRIPT\"", "ask", "known only at run time"},
		{"eval \"$x\"", "ask", "eval"},
		{"env -S 'git push'", "ask", "env -S"},
		{"env -C /etc touch x", "ask", "env -C"},
		{"command -v go && go build ./...", "sandbox", ""},
		{"command sudo ls", "ask", "runs `sudo`"},
		{"cd \"$DIR\" && make", "ask", "known only at run time"},
		{"make 'unclosed", "ask", "could not parse"},
		{"", "ask", "empty command"},
	})
}

// Commands that ask without a sandbox policy ask the same way with one
// given only halfway, and a user's requireApproval pattern asks.
func TestSandboxVerdictNeedsAPolicy(t *testing.T) {
	env, _ := sandboxEnv(t)
	c := mustNew(t, Config{RequireApproval: []string{"make deploy", "go generate"}})
	runVerdicts(t, c, env, []vcase{
		{"make deploy", "ask", "matches `make deploy`"},
		{"make -C web deploy", "ask", "make deploy"},
		{"make build", "sandbox", ""},
		{"go generate ./...", "ask", "go generate"},
	})
	for _, half := range []Env{{Cwd: env.Cwd, Workspace: env.Workspace, Home: env.Home, Writable: env.Writable},
		{Cwd: env.Cwd, Workspace: env.Workspace, Home: env.Home, Readable: env.Readable}} {
		runVerdicts(t, c, half, []vcase{{"make build", "ask", "runs `make`, which no rule allows"}})
	}
}

func TestRequireApprovalConfig(t *testing.T) {
	cfg, err := ParseConfig([]byte(`{"requireApproval": ["make deploy", "kubectl-foo --force"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(cfg); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "  ", "./deploy.sh", "make $(x)", "make 'x'"} {
		if _, err := New(Config{RequireApproval: []string{bad}}); err == nil || !strings.Contains(err.Error(), "requireApproval[0]") {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
}

// The corpus's ask lines: with a sandbox none of them is allowed
// unconfined, whatever else they become.
func TestCorpusAsksStayUnallowedWithASandbox(t *testing.T) {
	env, _ := sandboxEnv(t)
	c := mustNew(t, Config{})
	confined := 0
	for _, tc := range loadCorpus(t) {
		v := c.Check(tc.command, env)
		if v.Allow != (tc.verdict == "allow") {
			t.Errorf("%q: allow=%v with a sandbox policy, corpus says %s", tc.command, v.Allow, tc.verdict)
		}
		if v.Sandbox {
			confined++
		}
	}
	if confined == 0 {
		t.Error("no corpus ask line runs confined")
	}
}

// FuzzCheckConfined: with a sandbox policy, random commands never panic,
// never get both verdicts, and what does not parse never runs without
// asking, confined or not.
func FuzzCheckConfined(f *testing.F) {
	env, _ := sandboxEnv(f)
	c := mustNew(f, Config{RequireApproval: []string{"make deploy"}})
	for _, s := range []string{"make", "go test ./... > ../x", "cd src && rm -rf build", "bash -c 'git push'",
		"find . -exec rm -rf {} +", "xargs -I{} rm -r {}", "env -u X FOO=1 timeout -s KILL 5 nice -n 3 make",
		"echo x > ~/y", "for f in *; do cat \"$f\"; done", "sh -o pipefail -ec 'make'", "dd if=a of=b", "git -C x config a b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		v := c.Check(cmd, env)
		if v.Allow && v.Sandbox {
			t.Fatalf("%q: both allow and sandbox", cmd)
		}
		if !v.Allow && v.Reason == "" {
			t.Fatalf("%q: not allowed, without a reason", cmd)
		}
		if strings.HasPrefix(v.Reason, "internal error") {
			t.Fatalf("%q: %s", cmd, v.Reason)
		}
		if v.Allow || v.Sandbox {
			if _, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), ""); err != nil {
				t.Fatalf("%q: runs without asking but does not parse: %v", cmd, err)
			}
			if strings.TrimSpace(cmd) == "" {
				t.Fatalf("%q: empty command runs", cmd)
			}
		}
	})
}

// Regression: the sandbox masks secret files but not git's object store,
// so a command printing a commit that once held a secret must still ask
// confined; git commands that print nothing of it run confined.
func TestConfinedGitKeepsHistorySecrets(t *testing.T) {
	env := secretWorkspace(t)
	gitCommitAll(t, env.Workspace)
	base, _ := sandboxEnv(t)
	env.Writable, env.Readable = func(string) bool { return true }, base.Readable
	c := mustNew(t, Config{})
	runVerdicts(t, c, env, []vcase{
		{"git log -p", "ask", "tracks or once tracked a secret"},
		{"git show HEAD > out.txt", "ask", "secret"},
		{"git -C . show", "ask", "secret"},
		{"git show HEAD:.env", "ask", "names a secret file (.env)"},
		{"git -C \"$D\" show", "ask", ""},
		{"git --no-pager $(echo show)", "ask", ""},
		{"bash -c 'git log -p | cat'", "ask", "secret"},
		{"git show HEAD -- src > out.txt", "sandbox", ""},
		{"git commit -qm x && git log --oneline > log.txt", "sandbox", ""},
		{"git stash", "sandbox", ""},
	})
}

// BenchmarkCheckConfined: a command the unconfined check asks for and the
// confined one lets run (both checks run).
func BenchmarkCheckConfined(b *testing.B) {
	env, _ := sandboxEnv(b)
	c := mustNew(b, Config{})
	const cmd = "cd src && go test ./... 2>&1 | tail -20 > ../test.log"
	if v := c.Check(cmd, env); !v.Sandbox {
		b.Fatal(v.Reason)
	}
	for b.Loop() {
		c.Check(cmd, env)
	}
}
