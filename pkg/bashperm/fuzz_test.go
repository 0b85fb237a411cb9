package bashperm

import (
	"strings"
	"sync"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzCheck: random commands never panic, and what does not parse is never
// allowed.
func FuzzCheck(f *testing.F) {
	env := fixture(f)
	c := mustNew(f, Config{})
	for _, s := range []string{"ls -la", "cat README.md | head", "cd src && cat ../README.md", "echo $(id)",
		"ls *.go", "git log --oneline", "rg -z x", "find . -name '*.go'", "cat <<EOF\nx\nEOF", "ls 2>&1 >/dev/null",
		"echo {a,b} ~ 'q' \"d\" \\x", "ls; ls && ls || ls | ls |& ls", "f() { ls; }", "cat < README.md",
		"sed -n '1,5p;/x/{s/a/b/g;p}' README.md", "sed -e 's|[/]|x|w f' -n", "grep -rn --include='*.go' x .", "rg -g '!*.md' -n x src",
		"git config --get user.name", "git log -p -- src", "jq -r .a data.json", "xxd -r a b", "diff -r src docs", "[ -f x ]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		v := c.Check(cmd, env)
		if !v.Allow && v.Reason == "" {
			t.Fatalf("%q: ask without a reason", cmd)
		}
		if strings.HasPrefix(v.Reason, "internal error") {
			t.Fatalf("%q: %s", cmd, v.Reason)
		}
		if v.Allow {
			if _, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), ""); err != nil {
				t.Fatalf("%q: allowed but does not parse: %v", cmd, err)
			}
			if strings.TrimSpace(cmd) == "" {
				t.Fatalf("%q: empty command allowed", cmd)
			}
		}
	})
}

// TestConcurrentCheck runs the corpus from many goroutines (meant for -race).
func TestConcurrentCheck(t *testing.T) {
	env := fixture(t)
	c := mustNew(t, Config{})
	cases := loadCorpus(t)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				for _, tc := range cases {
					if got := c.Check(tc.command, env).Allow; got != (tc.verdict == "allow") {
						t.Errorf("%q: concurrent verdict %v", tc.command, got)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

func TestCheckNeverPanicsOnOddEnv(t *testing.T) {
	c := mustNew(t, Config{})
	for _, env := range []Env{{}, {Cwd: "rel", Workspace: "/"}, {Cwd: "/", Workspace: "/nonexistent/x"}, {Cwd: "/proc", Workspace: "/"}} {
		if v := c.Check("ls", env); v.Allow {
			t.Errorf("%+v: allowed", env)
		}
	}
}

func BenchmarkCheckPipeline(b *testing.B) {
	env := fixture(b)
	c := mustNew(b, Config{})
	const cmd = "git log --oneline -n 20 | grep fix | head -5"
	if v := c.Check(cmd, env); !v.Allow {
		b.Fatalf("not allowed: %s", v.Reason)
	}
	b.ReportAllocs()
	for b.Loop() {
		c.Check(cmd, env)
	}
}

// FuzzSedScript: the sed script reader never panics, and a script it
// allows holds none of the letters of the commands and flags that write,
// read or run (w W r R e) outside what it skipped as regex, text or label.
func FuzzSedScript(f *testing.F) {
	for _, s := range []string{"1,5p", "s/a/b/g", "/x/{p;n}", "s/[/]/x/w f", "1i\\\nx", ":a;N;ba", "y/ab/cd/", "$=", "s/a/b/e", "\\,x,d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		if sedScriptSafe(script) != "" {
			return
		}
		for _, c := range []string{"w", "W", "r", "R", "e"} {
			if script == c || strings.HasPrefix(script, c+" ") {
				t.Fatalf("%q allowed", script)
			}
		}
	})
}
