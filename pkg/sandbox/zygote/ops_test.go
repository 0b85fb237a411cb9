package zygote

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseOps(t *testing.T) {
	ops, err := parseOps([]string{"--tmpfs", "/tmp", "--bind", "/w", "/w", "--ro-bind", "/dev/null", "/w/.env", "--remount-ro", "/h"})
	require.NoError(t, err)
	assert.Equal(t, []op{{kind: opTmpfs, dst: "/tmp"}, {kind: opBind, src: "/w", dst: "/w"},
		{kind: opROBind, src: "/dev/null", dst: "/w/.env"}, {kind: opRemountRO, dst: "/h"}}, ops)

	for name, bad := range map[string][]string{
		"unknown option":    {"--unshare-net"},
		"a command's argv":  {"--bind", "/a", "/b", "bash"},
		"missing path":      {"--bind", "/a"},
		"relative path":     {"--tmpfs", "tmp"},
		"NUL in a path":     {"--ro-bind", "/a\x00b", "/c"},
		"bwrap's own flags": {"--cap-add", "ALL"},
	} {
		_, err := parseOps(bad)
		assert.Error(t, err, name)
	}
}

func FuzzParseOps(f *testing.F) {
	f.Add("--tmpfs\n/tmp\n--bind\n/a\n/b")
	f.Add("--ro-bind\n/dev/null\n/x\n--remount-ro\n/x")
	f.Add("--bind\n/a")
	f.Fuzz(func(t *testing.T, s string) {
		args := splitLines(s)
		ops, err := parseOps(args)
		if err != nil {
			return
		}
		// What parses names only absolute paths, and as many as it read.
		n := 0
		for _, o := range ops {
			n++
			if o.src != "" {
				n++
				if o.src[0] != '/' {
					t.Fatalf("relative source %q", o.src)
				}
			}
			n++
			if o.dst == "" || o.dst[0] != '/' {
				t.Fatalf("relative destination %q", o.dst)
			}
		}
		if n != len(args) {
			t.Fatalf("%d ops from %d arguments", len(ops), len(args))
		}
	})
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
