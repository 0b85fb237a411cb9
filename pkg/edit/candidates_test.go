package edit

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func candidatesOf(t *testing.T, content, old string) []Candidate {
	t.Helper()
	_, _, err := Apply(content, old, old+"x", false)
	var ne *NoMatchError
	require.ErrorAs(t, err, &ne)
	assert.Len(t, ne.wsOnly, len(ne.Candidates))
	return ne.Candidates
}

func lines(n int, f func(i int) string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(f(i) + "\n")
	}
	return b.String()
}

func TestCandidateRanking(t *testing.T) {
	content := "alpha := compute(one)\n" + // 1
		"beta := compute(two)\n" + // 2
		"gamma := compute(three)\n" + // 3
		"\n" + // 4
		"alpha := compute(1)\n" + // 5
		"beta := compute(two)\n" + // 6
		"gamma := compute(three)\n" // 7
	old := "alpha := compute(one)\nbeta := compute(2)\ngamma := compute(three)\n"
	c := candidatesOf(t, content, old)
	require.Len(t, c, 2)
	assert.Equal(t, 1, c[0].Line)
	assert.Equal(t, "alpha := compute(one)\nbeta := compute(two)\ngamma := compute(three)", c[0].Text)
	assert.Equal(t, 5, c[1].Line)
	assert.Greater(t, c[0].Score, c[1].Score)
	assert.Greater(t, c[1].Score, minScore)
	assert.Less(t, c[0].Score, 1.0)
}

func TestCandidateExtraOrMissingLine(t *testing.T) {
	content := "func f() {\n\ta()\n\tb()\n\tlog()\n\tc()\n}\n"
	// The file has an extra line inside the region.
	c := candidatesOf(t, content, "\ta()\n\tb()\n\tc()\n")
	require.NotEmpty(t, c)
	assert.Equal(t, Candidate{Line: 2, Text: "\ta()\n\tb()\n\tlog()\n\tc()", Score: 6.0 / 7}, c[0])

	// old_string has a line the file lacks.
	c = candidatesOf(t, "x()\n\ta()\n\tc()\ny()\n", "\ta()\n\tb()\n\tc()\n")
	require.NotEmpty(t, c)
	assert.Equal(t, 2, c[0].Line)
	assert.Equal(t, "\ta()\n\tc()", c[0].Text)
	assert.InDelta(t, 0.8, c[0].Score, 1e-9)
}

func TestCandidatesDistinctBestThree(t *testing.T) {
	block := func(i int) string {
		return fmt.Sprintf("if err := step%d(ctx); err != nil {\n\treturn err\n}\n", i)
	}
	var content string
	for i := 1; i <= 5; i++ {
		content += block(i) + "\n"
	}
	c := candidatesOf(t, content, "if err := step9(ctx); err != nil {\n\treturn err\n}\n")
	require.Len(t, c, maxCandidates)
	for i := 1; i < len(c); i++ {
		assert.GreaterOrEqual(t, c[i-1].Score, c[i].Score)
		prevEnd := c[i-1].Line + strings.Count(c[i-1].Text, "\n")
		assert.True(t, c[i].Line > prevEnd || c[i].Line+strings.Count(c[i].Text, "\n") < c[i-1].Line, "overlap: %+v", c)
	}
	assert.Equal(t, []int{1, 5, 9}, []int{c[0].Line, c[1].Line, c[2].Line})
}

func TestCandidatesThreshold(t *testing.T) {
	assert.Empty(t, candidatesOf(t, "completely\ndifferent\ntext\n", "nothing alike here\n"))
	// Old longer than the file: only windows of old's size ±1 line are
	// compared, so a one-line file cannot match four lines.
	assert.Empty(t, candidatesOf(t, "a\n", "a\nb\nc\nd\n"))
	// But one line short is fine.
	c := candidatesOf(t, "a\nb\nc\n", "a\nb\nc\nd\n")
	require.Len(t, c, 1)
	assert.Equal(t, Candidate{Line: 1, Text: "a\nb\nc", Score: 6.0 / 7}, c[0])
}

func TestCandidatesCRLFAndUnicode(t *testing.T) {
	c := candidatesOf(t, "x\r\n  naïve café 👋\r\n  你好\r\ny\r\n", "naïve café 👋\n你好\n")
	require.NotEmpty(t, c)
	assert.Equal(t, Candidate{Line: 2, Text: "  naïve café 👋\r\n  你好", Score: 1}, c[0])
}

func TestCandidatesWhitespaceFirst(t *testing.T) {
	// A region differing only in whitespace ranks before one with the
	// same whitespace as old_string but a changed token.
	content := "\tfoo(a, b)\n\tbar(c)\n\n  foo(a, b)\n  bar(d)\n"
	c := candidatesOf(t, content, "  foo(a, b)\n  bar(c)\n")
	require.Len(t, c, 2)
	assert.Equal(t, 1, c[0].Line)
	assert.Equal(t, 1.0, c[0].Score)
	assert.Equal(t, 4, c[1].Line)
}

func TestCandidatesBounded(t *testing.T) {
	// Cheap mode: whitespace-insensitive equality only.
	big := lines(30_000, func(i int) string { return fmt.Sprintf("line number %d", i) })
	c := candidatesOf(t, big, "  line number 20000\nline number 20001 \nchanged\n")
	require.NotEmpty(t, c)
	assert.Equal(t, 20000, c[0].Line)

	// Beyond maxWork no candidates are searched (its speed:
	// BenchmarkCandidatesBeyondMaxWork).
	huge, old := beyondMaxWork()
	assert.Empty(t, candidatesOf(t, huge, old))
}

func beyondMaxWork() (content, old string) {
	return lines(100_000, func(i int) string { return "x" }), lines(300, func(i int) string { return "y" })
}

func fullMode() (content, old string) {
	return lines(10_000, func(i int) string { return fmt.Sprintf("\tvalue%d := compute(%d, \"some text here\")", i, i*7) }),
		lines(150, func(i int) string { return fmt.Sprintf("\tvalue%d := compute(%d, \"some text here\")", i+5000, i) })
}

// Its speed is BenchmarkCandidatesFullMode's to measure; a timed
// assertion here failed on a loaded machine.
func TestCandidatesFullMode(t *testing.T) {
	content, old := fullMode()
	c := candidatesOf(t, content, old)
	require.NotEmpty(t, c)
	assert.Equal(t, 5001, c[0].Line)
}

func BenchmarkCandidatesFullMode(b *testing.B) {
	content, old := fullMode()
	for b.Loop() {
		findCandidates(content, old)
	}
}

func BenchmarkCandidatesBeyondMaxWork(b *testing.B) {
	content, old := beyondMaxWork()
	for b.Loop() {
		findCandidates(content, old)
	}
}
