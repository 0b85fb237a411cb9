package bashperm

import (
	"strings"
	"testing"
)

// Commands that delete or overwrite workspace files beyond undo ask, with
// a reason naming the rule, whether or not a sandbox could confine them;
// their harmless neighbours still run confined.
func TestDestructiveCommandsAsk(t *testing.T) {
	env, _ := sandboxEnv(t)
	c := mustNew(t, Config{})
	const rule = "no undo brings back — it asks until checkpoints (rewind) can restore them"
	destructive := []string{
		// Recursive deletes and their spellings.
		"rm -rf src",
		"find src -delete",
		"find . -name '*.tmp' -type f -delete",
		"find src -type f -exec rm {} \\;",
		"find src -execdir rm -f {} +",
		"find src -ok rm {} \\;",
		"find src -name '*.o' -exec rm -f {} +",
		"xargs rm < files.txt",
		"xargs -0 rm -f < files.txt",
		"rsync -a --delete src/ out/",
		"rsync -a --delete-after src/ out/",
		"rsync -a --del src/ out/",
		"rsync -av --delete-excluded src/ out/",
		"shred -u notes.txt",
		"truncate -s 0 notes.txt",
		// git throwing away uncommitted work.
		"git reset --hard",
		"git clean -fd",
		"git checkout -- .",
		"git checkout HEAD~1 -- src/main.go",
		"git checkout -f main",
		"git checkout --force main",
		"git checkout .",
		"git checkout src",
		"git checkout main src/main.go",
		"git checkout '*.go'",
		"git checkout ':(glob)**/*.go'",
		"git -C src checkout main.go",
		"git checkout --pathspec-from-file=files.txt",
		"git checkout --ours -- README.md",
		"git restore src/main.go",
		"git restore .",
		"git restore --staged --worktree src",
		"git restore -SW src",
		"git restore -s HEAD~1 src",
		"git restore --source=HEAD~1 -- src",
		"git switch --discard-changes main",
		"git switch --discard main",
		"git switch -f main",
		"git switch --force main",
		"git stash drop",
		"git stash drop stash@{1}",
		"git stash clear",
		// Inline code the check cannot read.
		"python3 -c 'import shutil; shutil.rmtree(\"src\")'",
		"python -c 'print(1)'",
		"python3.12 -c 'print(1)'",
		"python3 -Ic 'print(1)'",
		"python3 -W ignore -c 'print(1)'",
		"python3 -u -X dev -c 'print(1)'",
		"python3 - <<'EOF'\nimport shutil\nshutil.rmtree('src')\nEOF",
		"python3 <<'EOF'\nprint(1)\nEOF",
		"echo 'print(1)' | python3",
		"python3 -W ignore < setup.sh",
		"node -e 'require(\"fs\").rmSync(\"src\", {recursive: true})'",
		"node --eval 1",
		"node --eval=1",
		"node -p 1",
		"node --print 1",
		"node -pe 1",
		"nodejs -e 1",
		"node --inspect -e 1",
		"node",
		"perl -e 'unlink glob \"src/*\"'",
		"perl -E 'say 1'",
		"perl -ne print notes.txt",
		"perl -pi -e 's/a/b/' notes.txt",
		"perl -i.bak setup.sh notes.txt",
		"perl -MFile::Path=rmtree -e 'rmtree(\"src\")'",
		"perl -Ilib -e 1",
		"ruby -e 'puts 1'",
		"php -r 'unlink(\"x\");'",
		"php -R 'echo $argn;'",
		// Wrapped and nested.
		"timeout 5 python3 -c 'print(1)'",
		"env FOO=1 node -e 1",
		"bash -c \"python3 -c 'print(1)'\"",
		"make && git checkout -- .",
		"xargs python3 -c 'print(1)' < files.txt",
	}
	var cases []vcase
	for _, cmd := range destructive {
		cases = append(cases, vcase{cmd, "ask", rule})
	}
	cases = append(cases, []vcase{
		// Neighbours that lose nothing.
		{"rm -rf build dist", "sandbox", ""},
		{"rm notes.txt", "sandbox", ""},
		{"find src -name '*.o' -exec gzip {} +", "sandbox", ""},
		{"find . -mindepth 1 -links 2 -newer notes.txt -exec wc -l {} +", "sandbox", ""}, // -delete's letters, not -delete
		{"xargs wc -l < files.txt", "sandbox", ""},
		{"rsync -a src/ out/", "sandbox", ""},
		{"rsync -a --dry-run src/ out/", "sandbox", ""},
		{"git checkout main", "sandbox", ""},
		{"git checkout -b new", "sandbox", ""},
		{"git checkout -b new origin/main", "sandbox", ""},
		{"git checkout -qb new", "sandbox", ""},
		{"git checkout -", "sandbox", ""},
		{"git checkout HEAD~1", "sandbox", ""},
		{"git checkout main --", "sandbox", ""},
		{"git checkout --detach v1.2", "sandbox", ""},
		{"git switch main", "sandbox", ""},
		{"git switch -c new", "sandbox", ""},
		{"git switch --force-create new", "sandbox", ""},
		{"git restore --staged src/main.go", "sandbox", ""},
		{"git restore -S .", "sandbox", ""},
		{"git restore --staged -s HEAD~1 src", "sandbox", ""},
		{"git stash", "sandbox", ""},
		{"git stash pop", "sandbox", ""},
		{"git commit -am 'drop the checkout -- . code'", "sandbox", ""},
		{"python3 setup.sh", "sandbox", ""},
		{"python3 setup.sh -c x", "sandbox", ""},
		{"python3 -m pytest -c setup.cfg", "sandbox", ""},
		{"python3 -mpytest -q", "sandbox", ""},
		{"python3 -W ignore setup.sh", "sandbox", ""},
		{"python3 --version", "sandbox", ""},
		{"python3 -V", "sandbox", ""},
		{"node setup.sh", "sandbox", ""},
		{"node -r ts-node/register setup.sh", "sandbox", ""},
		{"node --require ts-node/register setup.sh -e x", "sandbox", ""},
		{"node --test", "sandbox", ""},
		{"node --version", "sandbox", ""},
		{"perl Makefile.PL", "sandbox", ""},
		{"perl -Ilib setup.sh", "sandbox", ""},
		{"perl -c setup.sh", "sandbox", ""},
		{"php setup.sh", "sandbox", ""},
		{"php -S localhost:8000", "sandbox", ""},
		{"php -d memory_limit=1G setup.sh", "sandbox", ""},
	}...)
	runVerdicts(t, c, env, cases)

	// Without a sandbox they ask too (no default rule allows them).
	plain := env
	plain.Writable, plain.Readable = nil, nil
	for _, cmd := range destructive {
		if v := c.Check(cmd, plain); v.Allow || v.Sandbox {
			t.Errorf("%q without a sandbox: %s", cmd, verdictName(v))
		}
	}
}

// The pattern language's two extensions: whole-word options for find,
// and a long flag ending in "*" for every flag it starts.
func TestRequireApprovalPatternExtensions(t *testing.T) {
	env, _ := sandboxEnv(t)
	c := mustNew(t, Config{RequireApproval: []string{"find -newer", "rsync --exclude*", "make -k"}})
	runVerdicts(t, c, env, []vcase{
		{"find src -newer notes.txt -exec wc -l {} +", "ask", "matches `find -newer`, which always asks (requireApproval)"},
		{"find src -name newer -exec wc -l {} +", "sandbox", ""},
		{"find src -type f -name x -exec wc -l {} +", "sandbox", ""}, // n, e, w, r in other words
		{"rsync -a --exclude-from=files.txt src/ out/", "ask", "rsync --exclude*"},
		{"rsync -a --exclude=x src/ out/", "ask", "rsync --exclude*"},
		{"rsync -a src/ out/", "sandbox", ""},
		{"make -ik", "ask", "make -k"},
	})
	for _, p := range DefaultDestructive {
		if !strings.Contains(strings.Join(DefaultRequireApproval, "\n"), p) {
			t.Errorf("%q is not in DefaultRequireApproval", p)
		}
	}
}
