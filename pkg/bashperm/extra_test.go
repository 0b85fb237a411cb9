package bashperm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type tcase struct {
	cmd    string
	allow  bool
	reason string // for ask: a substring the reason must contain
	cwd    string // relative to the workspace; "" is the root
}

// richFixture adds secrets in every form, a planted "-delete" file and an
// inward symlink to the corpus fixture.
func richFixture(t testing.TB) Env {
	env := fixture(t)
	for _, f := range []string{"certs/server.pem", "deploy.key", "id_rsa.pub", ".npmrc", ".netrc", ".git-credentials",
		"config/credentials", ".aws/config", ".gnupg/pubring.kbx", ".env.local", "dash/-delete", "dash/ok.txt", "data.json"} {
		write(t, filepath.Join(env.Workspace, f), "x\n")
	}
	for link, target := range map[string]string{"innocent.txt": ".env", "src-link": "src"} {
		if err := os.Symlink(target, filepath.Join(env.Workspace, link)); err != nil {
			t.Fatal(err)
		}
	}
	return env
}

func runCases(t *testing.T, c *Checker, env Env, cases []tcase) {
	t.Helper()
	for _, tc := range cases {
		e := env
		if tc.cwd != "" {
			e.Cwd = filepath.Join(env.Workspace, tc.cwd)
		}
		v := c.Check(tc.cmd, e)
		switch {
		case v.Allow != tc.allow:
			t.Errorf("%q (cwd %q): allow=%v (%s), want %v", tc.cmd, tc.cwd, v.Allow, v.Reason, tc.allow)
		case !v.Allow && !strings.Contains(v.Reason, tc.reason):
			t.Errorf("%q: reason %q does not contain %q", tc.cmd, v.Reason, tc.reason)
		}
	}
}

func TestDefaultRulesExtra(t *testing.T) {
	env := richFixture(t)
	runCases(t, mustNew(t, Config{}), env, []tcase{
		// deny flags in several spellings
		{"rg --pre=cat x", false, "`--pre`", ""},
		{"rg --pr cat x", false, "`--pr`", ""},
		{"rg -nz x", false, "`-z`", ""},
		{"rg '-z' x", false, "`-z`", ""},
		{`rg "-"z x`, false, "`-z`", ""},
		{`rg -\z x`, false, "`-z`", ""},
		{"rg --search-zip x", false, "--search-zip", ""},
		{"rg --follow x", false, "--follow", ""},
		{"rg -e -z README.md", true, "", ""},
		{"rg -ez README.md", true, "", ""},
		{"rg -- --pre README.md", true, "", ""},
		{"rg -e foo /etc/passwd", false, "outside the workspace", ""},
		{"rg --hidden KEY", false, "--hidden", ""},
		{"rg -uu KEY", false, "`-u`", ""},
		{"rg -. KEY", false, "`-.`", ""},
		{"git show HEAD:.env", false, "secret", ""},
		{"git log -p -- config/credentials", false, "secret", ""},
		{"git diff -- ':(top).env.local'", false, "secret", ""},
		{"git show HEAD:src/main.go", true, "", ""},
		{"git diff --ext-diff=x", false, "--ext-diff", ""},
		{"git diff --ext", false, "`--ext`", ""},
		{`git diff "--ext-diff"`, false, "--ext-diff", ""},
		{"git log --textconv", false, "--textconv", ""},
		{"git diff --no-index a b", false, "--no-index", ""},
		{"git show --output x HEAD", false, "--output", ""},
		{"git log --show-signature", false, "--show-signature", ""},
		{"git log --output-indicator-new=+ -p", true, "", ""},
		{"git --no-pager log -p", true, "", ""},
		{"git -P log", true, "", ""},
		{"git --exec-path=/tmp log", false, "--exec-path", ""},
		{"git --paginate log", false, "--paginate", ""},
		{"git --work-tree=. status", false, "--work-tree", ""},
		{"git commit -m x", false, "runs `git commit`", ""},
		{"git grep --open-files-in-pager=x TODO", false, "runs `git grep`", ""},
		{"git", false, "runs `git`", ""},
		{"git log -- *.go", false, "unquoted glob with `git`", ""},
		{"git log HEAD~3 --oneline", true, "", ""},
		{"git show HEAD@{1}", true, "", ""},
		// git branch: listing only
		{"git branch --list 'feat*'", true, "", ""},
		{"git branch -l feat", true, "", ""},
		{"git branch --merged main", true, "", ""},
		{"git branch -av", true, "", ""},
		{"git branch -vv", true, "", ""},
		{"git branch -m new", false, "`-m`", ""},
		{"git branch --set-upstream-to=origin/x", false, "--set-upstream-to", ""},
		{"git branch --contains HEAD newbranch", false, "creates or changes a branch", ""},
		{"git branch -- evil", false, "creates or changes a branch", ""},
		// grep / find / wc / head
		{"grep -R foo .", false, "`-R`", ""},
		{"grep -r foo .", false, "including the secret", ""},
		{"grep -f /etc/passwd README.md", false, "/etc/passwd", ""},
		{"grep --file=.env README.md", false, "secret", ""},
		{"grep -rf .env src", false, "secret", ""},
		{"grep -e foo -- README.md", true, "", ""},
		{"grep -- -v README.md", true, "", ""},
		{"grep foo *.go", true, "", ""},
		{"grep *.go README.md", false, "pattern for `grep`", ""},
		{"head -n * README.md", false, "value of `-n`", ""},
		{"find . -name '*.go'", true, "", ""},
		{"find src docs -type f -newer README.md", true, "", ""},
		{"find . -delete", false, "-delete", ""},
		{`find . -execdir ls \;`, false, "-execdir", ""},
		{"find -L . -name x", false, "-L", ""},
		{"find . -fprintf /tmp/x %p", false, "-fprintf", ""},
		{"find /etc -name x", false, "outside the workspace", ""},
		{"find link-to-etc", false, "resolves outside", ""},
		{"wc --files0-from=files.txt", false, "--files0-from", ""},
		{"head -n5 README.md", true, "", ""},
		{"head -n 5 /etc/passwd", false, "outside", ""},
		{"tail -f build.log", true, "", ""},
		{"pwd extra", false, "takes no operands", ""},
		{"which -a go sh", true, "", ""},
		// secrets in every form
		{"cat .env", false, "secret", ""},
		{"cat .env.local", false, "secret", ""},
		{"cat ./.ENV", false, "secret", ""},
		{"cat certs/server.pem", false, "server.pem", ""},
		{"cat deploy.key", false, "deploy.key", ""},
		{"cat id_rsa.pub", false, "id_rsa.pub", ""},
		{"cat .npmrc", false, "secret", ""},
		{"cat .netrc", false, "secret", ""},
		{"cat .git-credentials", false, "secret", ""},
		{"cat config/credentials", false, "secret", ""},
		{"cat .aws/config", false, ".aws", ""},
		{"ls .gnupg/", false, ".gnupg", ""},
		{"ls .ssh", false, ".ssh", ""},
		{"cat innocent.txt", false, "secret", ""},
		{"cat src/../.env", false, "secret", ""},
		{"cat < .env", false, "secret", ""},
		{"cat .*", false, "", ""},
		// paths, symlinks
		{"cat link-to-etc/../README.md", false, "outside", ""},
		{"cat src-link/main.go", true, "", ""},
		{"cat ../README.md", true, "", "src"},
		{"cat ../../README.md", false, "outside", "src"},
		{"cat /dev/null", false, "special", ""},
		{`cat "~/x"`, true, "", ""},
		{"cat nonexistent/../../x", false, "outside", ""},
		{"./ls", false, "runs `./ls`", ""},
		{"/bin/ls", false, "runs `/bin/ls`", ""},
		{"ls", false, "outside the workspace", "link-to-etc"},
	})
}

func TestCdTracking(t *testing.T) {
	env := richFixture(t)
	runCases(t, mustNew(t, Config{}), env, []tcase{
		{"cd src && cat ../README.md", true, "", ""},
		{"cd .. && ls", false, "changes directory to ..", ""},
		{"cd src && cd .. && cat README.md", true, "", ""},
		{"cd src && cd ../.. && ls", false, "outside", ""},
		{"cd link-to-etc && ls", false, "outside", ""},
		{"cd link-to-etc/.. && ls", false, "outside", ""},
		{"cd src; cat ../README.md", false, "outside", ""}, // cd may fail: cat may run from the root
		{"cd src || cat README.md", true, "", ""},
		{"cd src || cat ../README.md", false, "outside", ""},
		{"cd src | cat ../README.md", false, "outside", ""},
		{"cd src | cat README.md", true, "", ""},
		{"cd newdir && ls", true, "", ""},
		{"cd newdir && cat ../../etc/passwd", false, "outside", ""},
		{"cd src && ls && cd ../docs && cat README.md", true, "", ""},
		{"cd", false, "home directory", ""},
		{"cd -", false, "cd -", ""},
		{"cd ~", false, "`~`", ""},
		{"cd /tmp", false, "outside", ""},
		{"cd .ssh", false, "secret", ""},
		{"cd src docs", false, "more than one", ""},
		{"cd -P src", false, "`-P`", ""},
		{"cd s*", false, "glob", ""},
		{"cd -- src && ls", true, "", ""},
		{"cd ../README.md", true, "", "docs"},
	})
}

func TestRedirects(t *testing.T) {
	env := richFixture(t)
	runCases(t, mustNew(t, Config{}), env, []tcase{
		{"ls >/dev/null", true, "", ""},
		{"ls 2>/dev/null", true, "", ""},
		{"ls &>/dev/null", true, "", ""},
		{"ls &>>/dev/null", true, "", ""},
		{"ls >>/dev/null", true, "", ""},
		{"ls >| /dev/null", true, "", ""},
		{`ls > "/dev/null"`, true, "", ""},
		{"ls 2>/dev/null >/dev/null", true, "", ""},
		{"ls 2>&1 | head", true, "", ""},
		{"ls >&2", true, "", ""},
		{"ls >&out.txt", false, "redirects output to out.txt", ""},
		{"ls > out.txt", false, "redirects output to out.txt", ""},
		{"ls > /dev/nul*", false, "redirects output", ""},
		{"cat < README.md", true, "", ""},
		{"cat < /dev/null", true, "", ""},
		{"cat < *.md", false, "glob", ""},
		{"cat <> README.md", false, "<>", ""},
		{"cat <&3", false, "<&", ""},
		{"ls {fd}>/dev/null", false, "{fd}", ""},
		{"cat <<< hi", false, "here-string", ""},
		{"cat <<'EOF'\nhi\nEOF", false, "here-document", ""},
		{"> x", false, "redirects output to x", ""},
		{">/dev/null", false, "without a command", ""},
	})
}

func TestWordsAndGlobs(t *testing.T) {
	env := richFixture(t)
	runCases(t, mustNew(t, Config{}), env, []tcase{
		{"ls *", false, "", ""},
		{"ls l*", false, "link-to-etc", ""},
		{"ls src/*", true, "", ""},
		{"cat *.md docs/*", true, "", ""},
		{"ls *", false, "looks like a flag", "dash"},
		{"ls ./*", true, "", "dash"},
		{"cat '*'", true, "", ""},
		{`cat \*.md`, true, "", ""},
		{"cat [ab]*", false, "bracket", ""},
		{"ls */", false, "outside", ""},
		{"ls sr?/", true, "", ""},
		{`cat "README.md"`, true, "", ""},
		{`cat 'READ'ME.md`, true, "", ""},
		{`cat READ\ME.md`, true, "", ""},
		{`l\s -la`, true, "", ""},
		{`"ls" -la`, true, "", ""},
		{`echo "$HOME"`, false, "`$HOME`", ""},
		{`echo '$HOME'`, true, "", ""},
		{`echo "\$HOME"`, true, "", ""},
		{`echo \$HOME \~`, true, "", ""},
		{"echo a=~", false, "`~`", ""},
		{"echo {}", true, "", ""},
		{"echo {a,b}", false, "brace", ""},
		{"echo '{a,b}'", true, "", ""},
		{`echo {"a,b"}`, true, "", ""},
		{"echo {a..c}", false, "brace", ""},
		{"echo x{a,'b'}", false, "brace", ""},
		{`echo $"hi"`, false, "locale", ""},
		{"echo $((1+2))", false, "arithmetic", ""},
		{"echo `ls`", false, "command substitution", ""},
		{"echo ${x:-a}", false, "`$x`", ""},
		{"echo @(a|b)", false, "extended glob", ""},
		// statements and compounds
		{"! ls", false, "negates", ""},
		{"(ls)", false, "subshell", ""},
		{"ls &", false, "background", ""},
		{"if true; then ls; fi", false, "`if`", ""},
		{"while :; do ls; done", false, "loop", ""},
		{"[[ -f x ]]", false, "[[", ""},
		{"(( 1 ))", false, "arithmetic", ""},
		{"export X=1", false, "export", ""},
		{"let x=1", false, "let", ""},
		{"FOO=1 ls", false, "`FOO=…`", ""},
		{"ls | sort", true, "", ""}, // sort is allowed since issue 15
		{"ls | xargs rm", false, "runs `xargs`", ""},
		{"git log --oneline | grep fix | head -5 | wc -l", true, "", ""},
		{"cat README.md | grep a | grep b |& grep c | head -1 | tail -1 | wc -l", true, "", ""},
		{"cat README.md | grep a | grep b | grep c | head -1 | sh", false, "runs `sh`", ""},
		{"ls\npwd\necho hi", true, "", ""},
		{"ls # rm -rf /", true, "", ""},
		{"", false, "empty command", ""},
		{"   \n\t", false, "empty command", ""},
		{"# only a comment", false, "empty command", ""},
		{"ls (", false, "could not parse", ""},
		{`echo "unterminated`, false, "could not parse", ""},
	})
}
