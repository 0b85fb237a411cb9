package bashperm

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

type corpusCase struct{ verdict, command, why string }

func loadCorpus(t *testing.T) []corpusCase {
	t.Helper()
	data, err := os.ReadFile("testdata/bash-permissions.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var cases []corpusCase
	for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if i == 0 {
			continue // header
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 3 || (cols[0] != "allow" && cols[0] != "ask") {
			t.Fatalf("line %d: malformed: %q", i+1, line)
		}
		cases = append(cases, corpusCase{cols[0], strings.ReplaceAll(cols[1], "␤", "\n"), cols[2]})
	}
	return cases
}

func TestCorpus(t *testing.T) {
	env := fixture(t)
	c := mustNew(t, Config{})
	cases := loadCorpus(t)
	if len(cases) != 92 { // 93 lines with the header
		t.Errorf("corpus has %d cases, want 92", len(cases))
	}
	for _, tc := range cases {
		// The corpus is about running unconfined: a sandbox verdict
		// (only with a policy in env; see TestCorpusAsksStayUnallowedWithASandbox)
		// counts as ask.
		v := c.Check(tc.command, env)
		if got := map[bool]string{true: "allow", false: "ask"}[v.Allow]; got != tc.verdict {
			t.Errorf("%q: got %s (%s), want %s: %s", tc.command, got, v.Reason, tc.verdict, tc.why)
		} else if !v.Allow && v.Reason == "" {
			t.Errorf("%q: ask without a reason", tc.command)
		}
	}
}

// TestCorpusCopyMatchesShared catches drift between testdata and the shared
// corpus when the shared tree is present.
func TestCorpusCopyMatchesShared(t *testing.T) {
	shared, err := os.ReadFile("../../../shared/corpus/bash-permissions.tsv")
	if err != nil {
		t.Skipf("shared corpus not available: %v", err)
	}
	local, err := os.ReadFile("testdata/bash-permissions.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shared, local) {
		t.Fatal("testdata/bash-permissions.tsv differs from ../../../shared/corpus/bash-permissions.tsv; copy it again")
	}
}
