package edit

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestApply(t *testing.T) {
	tests := []struct {
		name       string
		content    string
		old, new   string
		replaceAll bool
		want       string
		count      int
	}{
		{name: "exact single", content: "a\nb\nc\n", old: "b\n", new: "B\n", want: "a\nB\nc\n", count: 1},
		{name: "exact mid-line", content: "x := 1 + 2\n", old: "1 + 2", new: "3", want: "x := 3\n", count: 1},
		{name: "delete", content: "a\nb\nc\n", old: "b\n", new: "", want: "a\nc\n", count: 1},
		{name: "CRLF content, LF old/new", content: "a\r\nb\r\nc\r\n", old: "a\nb\n", new: "A\nB\nX\n", want: "A\r\nB\r\nX\r\nc\r\n", count: 1},
		{name: "CRLF single line without newline", content: "a\r\nb\r\n", old: "b", new: "B", want: "a\r\nB\r\n", count: 1},
		{name: "CRLF replaceAll", content: "x\r\ny\r\nx\r\ny\r\n", old: "x\ny", new: "z\nw", replaceAll: true, want: "z\r\nw\r\nz\r\nw\r\n", count: 2},
		{name: "CRLF old as given in CRLF file", content: "a\r\nb\r\n", old: "a\r\n", new: "A\r\n", want: "A\r\nb\r\n", count: 1},
		{name: "mixed file: LF part matched as given", content: "a\r\nb\nc\n", old: "b\nc\n", new: "B\nC\n", want: "a\r\nB\nC\n", count: 1},
		{name: "mixed file: CRLF part via conversion", content: "a\r\nb\r\nc\n", old: "a\nb\n", new: "1\n", want: "1\r\nc\n", count: 1},
		{name: "LF file, CRLF old/new", content: "a\nb\n", old: "a\r\nb\r\n", new: "c\r\n", want: "c\n", count: 1},
		{name: "missing final newline", content: "a\nb", old: "b\n", new: "B\n", want: "a\nB", count: 1},
		{name: "missing final newline, multi-line", content: "a\nb\nc", old: "b\nc\n", new: "B\nC\n", want: "a\nB\nC", count: 1},
		{name: "missing final newline, new has more lines", content: "a\nb", old: "b\n", new: "b\nc\n", want: "a\nb\nc", count: 1},
		{name: "missing final newline, new adds blank line", content: "a\nb", old: "b\n", new: "b\n\n", want: "a\nb\n", count: 1},
		{name: "missing final newline, new without newline", content: "a\nb", old: "b\n", new: "B", want: "a\nB", count: 1},
		{name: "missing final newline, delete last line", content: "a\nb", old: "b\n", new: "", want: "a", count: 1},
		{name: "missing final newline, delete only line", content: "b", old: "b\n", new: "", want: "", count: 1},
		{name: "missing final newline, CRLF", content: "a\r\nb\r\nc", old: "b\nc\n", new: "B\nC\n", want: "a\r\nB\r\nC", count: 1},
		{name: "missing final newline, CRLF delete last", content: "a\r\nb", old: "b\n", new: "", want: "a", count: 1},
		{name: "missing final newline, replaceAll", content: "a\nb", old: "b\n", new: "c\n", replaceAll: true, want: "a\nc", count: 1},
		{name: "unicode é", content: "café\ncrème\n", old: "crème", new: "brûlée", want: "café\nbrûlée\n", count: 1},
		{name: "unicode emoji", content: "msg := \"hi 👋\"\n", old: "👋", new: "🎉🎉", want: "msg := \"hi 🎉🎉\"\n", count: 1},
		{name: "unicode CJK", content: "// 你好世界\nx := 1\n", old: "你好", new: "こんにちは", want: "// こんにちは世界\nx := 1\n", count: 1},
		{name: "tabs exact", content: "func f() {\n\treturn\n}\n", old: "\treturn\n", new: "\treturn nil\n", want: "func f() {\n\treturn nil\n}\n", count: 1},
		{name: "replaceAll count", content: "foo bar foo baz foo\n", old: "foo", new: "qux", replaceAll: true, want: "qux bar qux baz qux\n", count: 3},
		{name: "replaceAll single occurrence", content: "foo bar\n", old: "foo", new: "qux", replaceAll: true, want: "qux bar\n", count: 1},
		{name: "replaceAll overlapping is non-overlapping", content: "aaaa", old: "aa", new: "b", replaceAll: true, want: "bb", count: 2},
		{name: "replaceAll overlapping odd", content: "aaa", old: "aa", new: "b", replaceAll: true, want: "ba", count: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n, err := Apply(tt.content, tt.old, tt.new, tt.replaceAll)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.count, n)
		})
	}
}

func TestApplyErrors(t *testing.T) {
	tests := []struct {
		name       string
		content    string
		old, new   string
		replaceAll bool
		is         error
		ambiguous  []int
		noMatch    bool
	}{
		{name: "empty old", content: "a\n", old: "", new: "x", is: ErrEmptyOldString},
		{name: "empty old and new", content: "a\n", old: "", new: "", is: ErrEmptyOldString},
		{name: "same old and new", content: "a\n", old: "a", new: "a", is: ErrNoChange},
		{name: "line endings only", content: "a\r\nb\r\n", old: "a\n", new: "a\r\n", is: ErrLineEndingsOnly},
		{name: "multiple matches", content: "x\nfoo\ny\nfoo\nfoo\n", old: "foo", new: "bar", ambiguous: []int{2, 4, 5}},
		{name: "same line twice", content: "foo foo\nfoo\n", old: "foo", new: "bar", ambiguous: []int{1, 1, 2}},
		{name: "overlapping occurrences", content: "aaa\n", old: "aa", new: "b", ambiguous: []int{1, 1}},
		{name: "CRLF ambiguous", content: "a\r\nb\r\na\r\nb\r\n", old: "a\nb\n", new: "c\n", ambiguous: []int{1, 3}},
		{name: "tabs vs spaces", content: "func f() {\n\treturn\n}\n", old: "    return\n", new: "x", noMatch: true},
		{name: "not found", content: "a\nb\n", old: "zzz", new: "x", noMatch: true},
		{name: "old longer than file", content: "a\n", old: "a\nb\nc\nd\n", new: "x", noMatch: true},
		{name: "empty file", content: "", old: "a", new: "b", noMatch: true},
		{name: "missing newline not at end", content: "a\nb", old: "a\nb\n\n", new: "x", noMatch: true},
		{name: "unicode not normalised", content: "cafe\u0301\n", old: "café", new: "x", noMatch: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n, err := Apply(tt.content, tt.old, tt.new, tt.replaceAll)
			require.Error(t, err)
			assert.Equal(t, tt.content, got)
			assert.Zero(t, n)
			if tt.is != nil {
				assert.ErrorIs(t, err, tt.is)
			}
			if tt.ambiguous != nil {
				var ae *AmbiguousError
				require.ErrorAs(t, err, &ae)
				assert.Equal(t, tt.ambiguous, ae.Lines)
			}
			if tt.noMatch {
				var ne *NoMatchError
				require.ErrorAs(t, err, &ne)
			}
		})
	}
}

func TestApplyTabsVsSpacesCandidateFirst(t *testing.T) {
	content := "func a() {\n\tx := 1\n\treturn x\n}\n\nfunc b() {\n    x := 1\n    return y\n}\n"
	_, _, err := Apply(content, "    x := 1\n    return x\n", "x", false)
	var ne *NoMatchError
	require.ErrorAs(t, err, &ne)
	require.NotEmpty(t, ne.Candidates)
	assert.Equal(t, Candidate{Line: 2, Text: "\tx := 1\n\treturn x", Score: 1}, ne.Candidates[0])
	assert.Contains(t, err.Error(), "differs only in whitespace")
	require.Len(t, ne.Candidates, 2)
	assert.Equal(t, 7, ne.Candidates[1].Line)
	assert.Less(t, ne.Candidates[1].Score, 1.0)
}

func TestAmbiguousErrorText(t *testing.T) {
	err := (&AmbiguousError{Lines: []int{4, 19, 33}}).Error()
	assert.Equal(t, "old_string matches 3 places (lines 4, 19, 33); add surrounding lines to make it unique, or set replace_all", err)
	err = (&AmbiguousError{Lines: []int{1, 1, 2}}).Error()
	assert.Equal(t, "old_string matches 3 places (lines 1 (2 times), 2); add surrounding lines to make it unique, or set replace_all", err)
	var many []int
	for i := 1; i <= 20; i++ {
		many = append(many, i)
	}
	err = (&AmbiguousError{Lines: many}).Error()
	assert.Contains(t, err, "matches 20 places (lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, …)")
}

func TestNoMatchErrorText(t *testing.T) {
	e := &NoMatchError{Candidates: []Candidate{
		{Line: 12, Text: "foo()\nbar()", Score: 0.9},
		{Line: 40, Text: "foo()", Score: 0.75},
	}}
	assert.Equal(t, `old_string was not found in the file; the closest matches are at lines 12 and 40:

lines 12-13 (similarity 0.90):
12| foo()
13| bar()

line 40 (similarity 0.75):
40| foo()

Copy old_string exactly from the file (read it again if unsure).`, e.Error())

	assert.Contains(t, (&NoMatchError{Candidates: []Candidate{{Line: 3, Text: "x", Score: 0.6}}}).Error(),
		"the closest match is at line 3:\n")
	assert.Contains(t, (&NoMatchError{Candidates: []Candidate{{Line: 3, Score: 0.6}, {Line: 5, Score: 0.6}, {Line: 9, Score: 0.6}}}).Error(),
		"the closest matches are at lines 3, 5 and 9:\n")
	assert.Equal(t, "old_string was not found in the file and no similar region was found; read the file again and copy old_string exactly, including whitespace and indentation",
		(&NoMatchError{}).Error())

	// Long candidates are trimmed to a few lines; CRLF is shown as LF.
	long := strings.Repeat("line\r\n", 9) + "line"
	msg := (&NoMatchError{Candidates: []Candidate{{Line: 1, Text: long, Score: 0.8}}}).Error()
	assert.Contains(t, msg, "lines 1-10 (similarity 0.80):\n 1| line\n 2| line\n 3| line\n 4| line\n 5| line\n    … (5 more lines)\n")
	assert.NotContains(t, msg, "\r")
}

func TestErrorsAreDistinguishable(t *testing.T) {
	_, _, err := Apply("a", "b", "c", false)
	assert.False(t, errors.Is(err, ErrNoChange))
	assert.Contains(t, err.Error(), "old_string was not found in the file")
	_, _, err = Apply("a", "", "c", false)
	assert.Contains(t, err.Error(), "write_file")
	_, _, err = Apply("a", "a", "a", false)
	assert.Equal(t, "old_string and new_string are the same; there is nothing to change", err.Error())
}
