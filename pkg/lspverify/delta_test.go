package lspverify

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/edit"
)

func diag(line, col int, sev, msg string) capabilities.Diagnostic {
	return capabilities.Diagnostic{Path: "/w/main.go", Line: line, Col: col, Severity: sev, Message: msg, Source: "compiler", Server: "gopls"}
}

// numbered is n lines "line 1".."line n".
func numbered(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("line %d", i+1)
	}
	return out
}

func text(lines []string) string { return strings.Join(lines, "\n") + "\n" }

func mapOf(before, after []string) LineMap {
	return ParseDiff(edit.Diff("main.go", text(before), text(after), 2))
}

func TestLineMapInsertedLines(t *testing.T) {
	before := numbered(30)
	after := append(append(append([]string{}, before[:10]...), "new a", "new b", "new c"), before[10:]...)
	m := mapOf(before, after)
	for old := 0; old < 10; old++ {
		lo, hi := m.Map(old)
		assert.Equal(t, [2]int{old, old}, [2]int{lo, hi}, "line %d above the insertion stays", old)
	}
	for old := 10; old < 30; old++ {
		lo, hi := m.Map(old)
		assert.Equal(t, [2]int{old + 3, old + 3}, [2]int{lo, hi}, "line %d below moves down 3", old)
	}
}

func TestLineMapChangedAndRemovedLines(t *testing.T) {
	before := numbered(30)
	after := append([]string{}, before...)
	after[4] = "changed 5"
	after = append(after[:20], after[22:]...) // lines 21-22 removed
	m := mapOf(before, after)
	lo, hi := m.Map(4)
	assert.Equal(t, [2]int{4, 4}, [2]int{lo, hi}, "a changed line's change is that line")
	lo, hi = m.Map(20)
	assert.Equal(t, [2]int{19, 20}, [2]int{lo, hi}, "a removed line: the lines either side of the gap")
	lo, hi = m.Map(29)
	assert.Equal(t, [2]int{27, 27}, [2]int{lo, hi})
	lo, hi = m.Map(10)
	assert.Equal(t, [2]int{10, 10}, [2]int{lo, hi}, "between hunks")
}

func TestLineMapIdentity(t *testing.T) {
	lo, hi := ParseDiff("").Map(7)
	assert.Equal(t, [2]int{7, 7}, [2]int{lo, hi})
}

// A removed line reading "-- x" (Lua, SQL) is a body line, not a header.
func TestLineMapRemovedLineLooksLikeAHeader(t *testing.T) {
	before := []string{"-- a", "-- b", "x", "y", "z"}
	after := []string{"x", "y", "z"}
	m := mapOf(before, after)
	lo, hi := m.Map(4)
	assert.Equal(t, [2]int{2, 2}, [2]int{lo, hi})
}

func TestLineMapNoFinalNewline(t *testing.T) {
	m := ParseDiff(edit.Diff("f", "a\nb\nc", "a\nb\nc\nd\n", 2))
	lo, hi := m.Map(0)
	assert.Equal(t, [2]int{0, 0}, [2]int{lo, hi})
}

func TestCompareIntroducedAndFixed(t *testing.T) {
	before := []diagT{{3, "error", "x declared and not used"}}
	after := []diagT{{7, "error", "undefined: foo"}}
	d := Compare(diags(before), diags(after), LineMap{})
	require.Len(t, d.Introduced, 1)
	require.Len(t, d.Fixed, 1)
	assert.Equal(t, "undefined: foo", d.Introduced[0].Message)
	assert.Equal(t, "x declared and not used", d.Fixed[0].Message)
}

func TestCompareNothingWhenUnchanged(t *testing.T) {
	same := diags([]diagT{{3, "error", "a"}, {5, "warning", "b"}})
	d := Compare(same, same, LineMap{})
	assert.True(t, d.Empty())
	assert.Nil(t, d.Lines("/w", 20))
}

// Lines inserted above a diagnostic move it: it is the same one.
func TestCompareMovedByInsertedLines(t *testing.T) {
	before := numbered(30)
	after := append(append(append([]string{}, before[:2]...), "a", "b", "c", "d"), before[2:]...)
	m := mapOf(before, after)
	d := Compare(diags([]diagT{{20, "error", "e"}, {1, "warning", "w"}}), diags([]diagT{{24, "error", "e"}, {1, "warning", "w"}}), m)
	assert.True(t, d.Empty(), "%+v", d)
	// Where it was, without the shift, it would be another one.
	d = Compare(diags([]diagT{{20, "error", "e"}}), diags([]diagT{{20, "error", "e"}}), m)
	assert.Len(t, d.Introduced, 1)
	assert.Len(t, d.Fixed, 1)
}

// Equal diagnostics count: two before, one after leaves one fixed; one
// fixed on one line and the same message made on another are both told.
func TestCompareDuplicates(t *testing.T) {
	d := Compare(diags([]diagT{{3, "error", "e"}, {3, "error", "e"}}), diags([]diagT{{3, "error", "e"}}), LineMap{})
	assert.Len(t, d.Fixed, 1)
	assert.Empty(t, d.Introduced)

	d = Compare(diags([]diagT{{3, "error", "e"}}), diags([]diagT{{3, "error", "e"}, {3, "error", "e"}, {9, "error", "e"}}), LineMap{})
	assert.Len(t, d.Introduced, 2)
	assert.Empty(t, d.Fixed)

	d = Compare(diags([]diagT{{3, "error", "undefined: x"}}), diags([]diagT{{12, "error", "undefined: x"}}), LineMap{})
	assert.Len(t, d.Introduced, 1)
	assert.Len(t, d.Fixed, 1)
}

// A diagnostic on a line the edit changed may be anywhere in what that
// change became; an exact partner is preferred.
func TestCompareInsideAChange(t *testing.T) {
	before := numbered(10)
	after := append([]string{}, before...)
	after[4], after[5] = "five", "six"
	m := mapOf(before, after)
	d := Compare(diags([]diagT{{4, "error", "e"}}), diags([]diagT{{5, "error", "e"}}), m)
	assert.True(t, d.Empty(), "%+v", d)
	d = Compare(diags([]diagT{{4, "error", "e"}}), diags([]diagT{{7, "error", "e"}}), m)
	assert.False(t, d.Empty())
}

// Another server's or another severity's diagnostic is another one.
func TestCompareKeyIncludesServerAndSeverity(t *testing.T) {
	b := diag(3, 0, "error", "e")
	a := b
	a.Server = "pylsp"
	assert.False(t, Compare([]capabilities.Diagnostic{b}, []capabilities.Diagnostic{a}, LineMap{}).Empty())
	a = b
	a.Severity = "warning"
	assert.False(t, Compare([]capabilities.Diagnostic{b}, []capabilities.Diagnostic{a}, LineMap{}).Empty())
}

func TestLinesErrorsFirstAndFormat(t *testing.T) {
	d := Compare(diags([]diagT{{2, "hint", "old hint"}}), []capabilities.Diagnostic{
		diag(9, 1, "warning", "unused"),
		diag(4, 0, "error", "undefined:\n  foo"),
		{Path: "/elsewhere/x.go", Line: 0, Col: 0, Severity: "error", Message: "m"},
	}, LineMap{})
	assert.Equal(t, []string{
		"Diagnostics after this edit: 3 introduced, 1 fixed",
		"introduced: /elsewhere/x.go:1:1 error m",
		"introduced: main.go:5:1 error undefined: foo (compiler)",
		"introduced: main.go:10:2 warning unused (compiler)",
		"fixed: main.go:3:1 hint old hint (compiler)",
	}, d.Lines("/w", 20))
}

func TestLinesCap(t *testing.T) {
	var after []diagT
	for i := range 25 {
		after = append(after, diagT{i, "error", fmt.Sprint("e", i)})
	}
	d := Compare(diags([]diagT{{1, "warning", "gone"}, {2, "warning", "gone too"}}), diags(after), LineMap{})
	lines := d.Lines("/w", 20)
	require.Len(t, lines, 22)
	assert.Equal(t, "Diagnostics after this edit: 25 introduced, 2 fixed", lines[0])
	assert.Equal(t, "introduced: main.go:20:1 error e19 (compiler)", lines[20])
	assert.Equal(t, "… and 7 more (5 introduced, 2 fixed)", lines[21])
}

func TestFormatLongMessage(t *testing.T) {
	got := Format("/w", diag(0, 0, "error", strings.Repeat("é", 400)))
	assert.Equal(t, "main.go:1:1 error "+strings.Repeat("é", maxMessage)+"… (compiler)", got)
}

type diagT struct {
	line     int
	severity string
	message  string
}

func diags(ts []diagT) []capabilities.Diagnostic {
	out := make([]capabilities.Diagnostic, len(ts))
	for i, t := range ts {
		out[i] = diag(t.line, 0, t.severity, t.message)
	}
	return out
}
