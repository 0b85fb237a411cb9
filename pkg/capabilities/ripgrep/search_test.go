package ripgrep

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

func req(path, pattern string) capabilities.SearchRequest {
	return capabilities.SearchRequest{Path: path, Pattern: pattern}
}

// search runs r with a new Searcher using rg from PATH.
func search(t *testing.T, r capabilities.SearchRequest) *capabilities.SearchResult {
	t.Helper()
	needRG(t)
	res, err := New(Options{}).Search(context.Background(), r)
	require.NoError(t, err)
	return res
}

// lines renders a result as path → "N:text" (match) / "N-text" (context).
func lines(res *capabilities.SearchResult) map[string][]string {
	out := map[string][]string{}
	for _, f := range res.Files {
		for _, l := range f.Lines {
			sep := "-"
			if l.Match {
				sep = ":"
			}
			out[f.Path] = append(out[f.Path], fmt.Sprintf("%d%s%s", l.Number, sep, l.Text))
		}
	}
	return out
}

func tree(t *testing.T, files map[string]string) string {
	dir := t.TempDir()
	writeTree(t, dir, files)
	return dir
}

func TestSearchMatchesAcrossFiles(t *testing.T) {
	dir := tree(t, map[string]string{
		"a.txt":     "one\nneedle one\nthree\nfour\nneedle two\n",
		"sub/b.txt": "needle three\n",
		"c.txt":     "nothing here\n",
	})
	res := search(t, req(dir, "needle"))
	assert.Equal(t, map[string][]string{
		"a.txt":     {"2:needle one", "5:needle two"},
		"sub/b.txt": {"1:needle three"},
	}, lines(res))
	assert.Equal(t, 3, res.Matches)
	for _, f := range res.Files {
		assert.Equal(t, len(f.Lines), f.Matches, f.Path)
	}
	assert.False(t, res.Truncated)
	assert.Empty(t, res.Errors)
	assert.False(t, res.TimedOut)
	assert.Regexp(t, `^rg \d+\.\d+\.\d+ \(PATH: /.*rg\)$`, res.Searcher)
}

func TestSearchContext(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, "l%d\n", i)
	}
	text := strings.Replace(strings.Replace(b.String(), "l5\n", "l5 needle\n", 1), "l7\n", "l7 needle\n", 1)
	dir := tree(t, map[string]string{"f.txt": text})
	r := req(dir, "needle")
	r.Context = 2
	res := search(t, r)
	assert.Equal(t, []string{"3-l3", "4-l4", "5:l5 needle", "6-l6", "7:l7 needle", "8-l8", "9-l9"}, lines(res)["f.txt"])
	assert.Equal(t, 2, res.Matches)
}

func TestSearchInclude(t *testing.T) {
	dir := tree(t, map[string]string{"a.go": "needle\n", "b.txt": "needle\n", "sub/c.go": "needle\n"})
	r := req(dir, "needle")
	r.Include = "*.go"
	assert.ElementsMatch(t, []string{"a.go", "sub/c.go"}, paths(search(t, r)))
	r.Include = "sub/*.go"
	assert.ElementsMatch(t, []string{"sub/c.go"}, paths(search(t, r)))
}

func paths(res *capabilities.SearchResult) []string {
	var out []string
	for _, f := range res.Files {
		out = append(out, f.Path)
	}
	return out
}

func TestSearchIgnoreCase(t *testing.T) {
	dir := tree(t, map[string]string{"f.txt": "NEEDLE\nneedle\nNeEdLe\n"})
	r := req(dir, "needle")
	assert.Equal(t, 1, search(t, r).Matches)
	r.IgnoreCase = true
	assert.Equal(t, 3, search(t, r).Matches)
}

func TestSearchFixedStrings(t *testing.T) {
	dir := tree(t, map[string]string{"f.txt": "a.b(c)*\naxbc\n"})
	r := req(dir, "a.b(c)*")
	assert.Equal(t, []string{"1:a.b(c)*", "2:axbc"}, lines(search(t, r))["f.txt"])
	r.FixedStrings = true
	assert.Equal(t, []string{"1:a.b(c)*"}, lines(search(t, r))["f.txt"])
}

func TestSearchPatternThatLooksLikeAFlag(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	dir := tree(t, map[string]string{"f.txt": "run --pre=x here\n-v\nplain\n"})
	for pattern, want := range map[string][]string{
		"--pre=x":               {"1:run --pre=x here"},
		"-v":                    {"2:-v"},
		"--pre=touch " + marker: nil,
	} {
		res := search(t, req(dir, pattern))
		assert.Equal(t, want, lines(res)["f.txt"], pattern)
		assert.Empty(t, res.Errors, pattern)
	}
	_, err := os.Stat(marker)
	assert.ErrorIs(t, err, os.ErrNotExist, "a pattern ran a preprocessor")
}

func TestSearchGitignoreOutsideARepository(t *testing.T) {
	dir := tree(t, map[string]string{
		".gitignore":    "ignored.txt\nbuild/\n",
		"ignored.txt":   "needle\n",
		"build/out.txt": "needle\n",
		"kept.txt":      "needle\n",
	})
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			t.Skipf("the temporary directory is inside a git repository (%s)", d)
		}
	}
	assert.Equal(t, []string{"kept.txt"}, paths(search(t, req(dir, "needle"))))
}

func TestSearchSkipsGitAndHidden(t *testing.T) {
	dir := tree(t, map[string]string{
		".git/config":      "needle\n",
		".git/objects/x":   "needle\n",
		".hidden.txt":      "needle\n",
		".hdir/inside.txt": "needle\n",
		"visible.txt":      "needle\n",
	})
	assert.Equal(t, []string{"visible.txt"}, paths(search(t, req(dir, "needle"))))
}

func TestSearchSkipsBinaryFiles(t *testing.T) {
	dir := tree(t, map[string]string{"bin.dat": "needle\x00\x01\x02needle\n", "text.txt": "needle\n"})
	res := search(t, req(dir, "needle"))
	assert.Equal(t, []string{"text.txt"}, paths(res))
	assert.Empty(t, res.Errors)
}

func TestSearchNonUTF8(t *testing.T) {
	dir := tree(t, map[string]string{"latin1.txt": "caf\xe9 needle\n", "caf\xe9.txt": "needle\n"})
	res := search(t, req(dir, "needle"))
	assert.Equal(t, map[string][]string{
		"latin1.txt":    {"1:caf\uFFFD needle"},
		"caf\uFFFD.txt": {"1:needle"},
	}, lines(res))
}

func TestSearchCRLF(t *testing.T) {
	dir := tree(t, map[string]string{"dos.txt": "needle\r\nother\r\n"})
	assert.Equal(t, []string{"1:needle"}, lines(search(t, req(dir, "needle")))["dos.txt"])
}

func numbered(n, every int) string {
	var b strings.Builder
	for i := 1; i <= n*every; i++ {
		if i%every == 1 || every == 1 {
			fmt.Fprintf(&b, "needle %d\n", i)
		} else {
			fmt.Fprintf(&b, "hay %d\n", i)
		}
	}
	return b.String()
}

func TestSearchMaxMatches(t *testing.T) {
	dir := tree(t, map[string]string{"one.txt": numbered(150, 1)})
	r := req(dir, "needle")
	r.MaxMatches = 100
	res := search(t, r)
	require.Len(t, res.Files, 1)
	assert.Equal(t, 100, res.Matches)
	assert.Equal(t, 100, res.Files[0].Matches)
	assert.Len(t, res.Files[0].Lines, 100)
	assert.Equal(t, 100, res.Files[0].Lines[99].Number)
	assert.True(t, res.Truncated)

	many := tree(t, map[string]string{"a.txt": numbered(50, 1), "b.txt": numbered(50, 1), "c.txt": numbered(50, 1)})
	r = req(many, "needle")
	r.MaxMatches = 100
	res = search(t, r)
	assert.Equal(t, 100, res.Matches)
	sum, kept := 0, 0
	for _, f := range res.Files {
		sum += f.Matches
		for _, l := range f.Lines {
			if l.Match {
				kept++
			}
		}
	}
	assert.Equal(t, 100, sum)
	assert.Equal(t, 100, kept)
	assert.True(t, res.Truncated)
}

func TestSearchMaxMatchesExact(t *testing.T) {
	dir := tree(t, map[string]string{"a.txt": numbered(60, 1), "b.txt": numbered(40, 1)})
	r := req(dir, "needle")
	r.MaxMatches = 100
	res := search(t, r)
	assert.Equal(t, 100, res.Matches)
	assert.False(t, res.Truncated)
}

func TestSearchMaxMatchesDropsContextOfLaterMatches(t *testing.T) {
	// Matches on lines 1, 4, 7, …: the 100th is line 298.
	dir := tree(t, map[string]string{"f.txt": numbered(150, 3)})
	r := req(dir, "needle")
	r.MaxMatches, r.Context = 100, 1
	res := search(t, r)
	require.Len(t, res.Files, 1)
	got := res.Files[0].Lines
	assert.Equal(t, 100, res.Matches)
	assert.True(t, res.Truncated)
	assert.Equal(t, capabilities.SearchLine{Number: 298, Text: "needle 298", Match: true}, got[len(got)-2])
	assert.Equal(t, capabilities.SearchLine{Number: 299, Text: "hay 299"}, got[len(got)-1])
}

func TestSearchNoMatches(t *testing.T) {
	dir := tree(t, map[string]string{"f.txt": "hay\n"})
	res := search(t, req(dir, "needle"))
	assert.Empty(t, res.Files)
	assert.Zero(t, res.Matches)
	assert.Empty(t, res.Errors)
	assert.False(t, res.Truncated || res.TimedOut)
}

func TestSearchInvalidRegex(t *testing.T) {
	dir := tree(t, map[string]string{"f.txt": "hay\n"})
	res := search(t, req(dir, "(abc"))
	require.Len(t, res.Errors, 1)
	assert.Contains(t, res.Errors[0], "regex")
	assert.Zero(t, res.Matches)
}

func TestSearchUnreadableFile(t *testing.T) {
	files := map[string]string{"open.txt": "needle\n"}
	for i := range 30 {
		files[fmt.Sprintf("secret%02d.txt", i)] = "needle\n"
	}
	dir := tree(t, files)
	for i := range 30 {
		require.NoError(t, os.Chmod(filepath.Join(dir, fmt.Sprintf("secret%02d.txt", i)), 0))
	}
	if f, err := os.Open(filepath.Join(dir, "secret00.txt")); err == nil {
		f.Close()
		t.Skip("files with mode 000 are readable (running as root)")
	}
	res := search(t, req(dir, "needle"))
	assert.Equal(t, []string{"open.txt"}, paths(res))
	require.Len(t, res.Errors, MaxErrors)
	assert.Regexp(t, `^secret\d\d\.txt: .*[Pp]ermission denied`, res.Errors[0])
	assert.Equal(t, "… 11 more messages from rg", res.Errors[MaxErrors-1])
}

func TestSearchFile(t *testing.T) {
	dir := tree(t, map[string]string{"f.txt": "hay\nneedle\n", "g.txt": "needle\n"})
	p := filepath.Join(dir, "f.txt")
	assert.Equal(t, map[string][]string{p: {"2:needle"}}, lines(search(t, req(p, "needle"))))
}

func TestSearchBadPaths(t *testing.T) {
	needRG(t)
	s := New(Options{})
	_, err := s.Search(context.Background(), req(filepath.Join(t.TempDir(), "missing"), "x"))
	assert.ErrorIs(t, err, capabilities.ErrNotExist)
	_, err = s.Search(context.Background(), req("relative/dir", "x"))
	assert.ErrorContains(t, err, "not absolute")
}

func TestSearchIgnoresRipgrepConfig(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "rgrc")
	require.NoError(t, os.WriteFile(cfg, []byte("--max-count=1\n--invert-match\n"), 0o644))
	t.Setenv("RIPGREP_CONFIG_PATH", cfg)
	dir := tree(t, map[string]string{"f.txt": "needle\nneedle\nhay\n"})
	assert.Equal(t, []string{"1:needle", "2:needle"}, lines(search(t, req(dir, "needle")))["f.txt"])
}

func TestSearchConcurrent(t *testing.T) {
	needRG(t)
	dir := tree(t, map[string]string{"a.txt": "needle\n", "b/c.txt": "needle\nneedle\n"})
	s := New(Options{})
	var wg sync.WaitGroup
	results := make([]*capabilities.SearchResult, 8)
	errs := make([]error, 8)
	for i := range results {
		wg.Go(func() { results[i], errs[i] = s.Search(context.Background(), req(dir, "needle")) })
	}
	wg.Wait()
	for i := range results {
		require.NoError(t, errs[i])
		assert.Equal(t, 3, results[i].Matches)
	}
}
