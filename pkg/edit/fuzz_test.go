package edit

import (
	"strings"
	"testing"
)

func FuzzApply(f *testing.F) {
	seeds := []struct {
		content, old, new string
		all               bool
	}{
		{"a\nb\nc\n", "b\n", "B\n", false},
		{"a\r\nb\r\n", "a\nb\n", "x\n", false},
		{"a\nb", "b\n", "", false},
		{"aaa", "aa", "b", false},
		{"aaaa", "aa", "b", true},
		{"\tx := 1\n", "    x := 1\n", "y", false},
		{"café 👋 你好\n", "👋", "🎉", false},
		{"", "x", "y", false},
		{"a\r\nb\nc\r\n", "b\nc\n", "\n", false},
		{"x\n", "", "y", false},
	}
	for _, s := range seeds {
		f.Add(s.content, s.old, s.new, s.all)
	}
	f.Fuzz(func(t *testing.T, content, old, new string, all bool) {
		got, n, err := Apply(content, old, new, all)
		if err != nil {
			if got != content || n != 0 {
				t.Fatalf("error %v but content changed or count %d", err, n)
			}
			_ = err.Error()
			return
		}
		if n < 1 {
			t.Fatalf("success with count %d", n)
		}
		if n == 1 && strings.Count(content, old) == 1 {
			if want := strings.Replace(content, old, new, 1); got != want {
				t.Fatalf("Apply(%q, %q, %q) = %q, want %q", content, old, new, got, want)
			}
		}
		if all && strings.Contains(content, old) {
			if want := strings.ReplaceAll(content, old, new); got != want || n != strings.Count(content, old) {
				t.Fatalf("replaceAll: got %q (%d), want %q", got, n, want)
			}
		}
		_ = Diff("f", content, got, 3)
	})
}
