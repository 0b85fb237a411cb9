package edit

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDiff(t *testing.T) {
	tests := []struct {
		name          string
		before, after string
		context       int
		want          string
	}{
		{name: "identical", before: "a\n", after: "a\n", context: 3, want: ""},
		{
			name:   "replace one line",
			before: "1\n2\n3\n4\n5\n6\n7\n", after: "1\n2\n3\nfour\n5\n6\n7\n", context: 1,
			want: "--- f.go\n+++ f.go\n@@ -3,3 +3,3 @@\n 3\n-4\n+four\n 5\n",
		},
		{
			name:   "insert lines",
			before: "a\nb\nc\n", after: "a\nb\nx\ny\nc\n", context: 1,
			want: "--- f.go\n+++ f.go\n@@ -2,2 +2,4 @@\n b\n+x\n+y\n c\n",
		},
		{
			name:   "zero context",
			before: "a\nb\nc\n", after: "a\nc\n", context: 0,
			want: "--- f.go\n+++ f.go\n@@ -2 +1,0 @@\n-b\n",
		},
		{
			name:   "negative context means 3",
			before: "1\n2\n3\n4\n5\n6\n7\n8\n9\n", after: "1\n2\n3\n4\nV\n6\n7\n8\n9\n", context: -1,
			want: "--- f.go\n+++ f.go\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+V\n 6\n 7\n 8\n",
		},
		{
			name:   "two hunks",
			before: "1\n2\n3\n4\n5\n6\n7\n8\n9\n", after: "one\n2\n3\n4\n5\n6\n7\n8\nnine\n", context: 1,
			want: "--- f.go\n+++ f.go\n@@ -1,2 +1,2 @@\n-1\n+one\n 2\n@@ -8,2 +8,2 @@\n 8\n-9\n+nine\n",
		},
		{
			name:   "no final newline kept",
			before: "a\nb", after: "a\nB", context: 3,
			want: "--- f.go\n+++ f.go\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+B\n\\ No newline at end of file\n",
		},
		{
			name:   "final newline added",
			before: "a\nb", after: "a\nb\n", context: 3,
			want: "--- f.go\n+++ f.go\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
		},
		{
			name:   "new file",
			before: "", after: "x\n", context: 3,
			want: "--- f.go\n+++ f.go\n@@ -0,0 +1 @@\n+x\n",
		},
		{
			name:   "CRLF printed as LF",
			before: "a\r\nb\r\n", after: "a\r\nc\r\n", context: 3,
			want: "--- f.go\n+++ f.go\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n",
		},
		{
			name:   "unicode",
			before: "café\n", after: "café 👋\n", context: 3,
			want: "--- f.go\n+++ f.go\n@@ -1 +1 @@\n-café\n+café 👋\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Diff("f.go", tt.before, tt.after, tt.context))
		})
	}
}

func TestDiffAfterApply(t *testing.T) {
	before := "package p\n\nfunc f() int {\n\treturn 1\n}\n"
	after, n, err := Apply(before, "\treturn 1\n", "\treturn 2\n", false)
	assert.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Equal(t, "--- p.go\n+++ p.go\n@@ -3,3 +3,3 @@\n func f() int {\n-\treturn 1\n+\treturn 2\n }\n",
		Diff("p.go", before, after, 1))
}
