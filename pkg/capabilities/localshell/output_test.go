package localshell

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// feedAll runs the processor over pieces of stdout, split exactly as given.
func feedAll(t *testing.T, pieces ...string) (*capabilities.ExecResult, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "log")
	f, err := os.Create(path)
	require.NoError(t, err)
	w := newLogFile(f, DefaultLogMaxBytes)
	p := newProcessor(w, nil, nil)
	st := &p.streams[capabilities.Stdout]
	for _, s := range pieces {
		p.feed(st, []byte(s))
	}
	p.finish(st)
	p.finish(&p.streams[capabilities.Stderr])
	require.NoError(t, w.close("end").err)
	log, err := os.ReadFile(path)
	require.NoError(t, err)
	var r capabilities.ExecResult
	p.fill(&r)
	return &r, strings.TrimSuffix(string(log), "end\n")
}

func texts(r *capabilities.ExecResult) []string {
	var out []string
	for _, l := range append(append([]capabilities.OutputLine{}, r.Head...), r.Tail...) {
		out = append(out, l.Text)
	}
	return out
}

func TestLinesAcrossChunkBoundaries(t *testing.T) {
	r, log := feedAll(t, "hel", "lo\nwor", "ld\r", "\nlast")
	assert.Equal(t, []string{"hello", "world", "last"}, texts(r))
	assert.Equal(t, "stdout: hello\nstdout: world\nstdout: last\n", log)

	// Every split point of a mixed input gives the same lines.
	in := "a\x1b[31mb\x1b[0m\r\nprog 1%\rprog 99%\n\xe2\x82\xac euro\n\n"
	want := []string{"ab", "prog 99%", "€ euro", ""}
	for i := 0; i <= len(in); i++ {
		r, _ := feedAll(t, in[:i], in[i:])
		assert.Equal(t, want, texts(r), "split at %d", i)
	}
}

func TestFold(t *testing.T) {
	for in, want := range map[string]string{
		"a\r10%\r100%":                      "100%",
		"downloading\rdone":                 "doneloading",
		"abc\r":                             "abc",
		"héllo\rab":                         "abllo",
		"old text\r\x1b[Knew":               "new",
		"old text\x1b[2K\rnew":              "new",
		"\x1b[32m 50%\x1b[0m\r\x1b[32m100%": "100%",
	} {
		assert.Equal(t, want, fold(in), "%q", in)
	}
}

func TestCleanLine(t *testing.T) {
	assert.Equal(t, "\uFFFDok", cleanLine([]byte("\xff\xfeok")))
	assert.Equal(t, "link", cleanLine([]byte("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\")))
	assert.Equal(t, "bold", cleanLine([]byte("\x1b[38:2:1:2:3mbold\x1b[m")))
}

func TestCutMiddle(t *testing.T) {
	s := strings.Repeat("é", 1500) // 3000 bytes
	c := cutMiddle(s)
	assert.LessOrEqual(t, len(c), maxLine)
	assert.True(t, strings.HasPrefix(c, "éé"))
	assert.True(t, strings.HasSuffix(c, "éé"))
	assert.Contains(t, c, " bytes cut] … ")
	assert.Equal(t, "short", cutMiddle("short"))
}

func TestLongLineStreamedAcrossChunks(t *testing.T) {
	// 300 KB in 7-byte-unaligned pieces, with a multi-byte rune at both cut
	// points' neighbourhood and a CRLF ending.
	line := "€" + strings.Repeat("0123456789", 30000) + "€"
	var pieces []string
	for i := 0; i < len(line); i += 4093 {
		pieces = append(pieces, line[i:min(i+4093, len(line))])
	}
	pieces = append(pieces, "\r\nnext\n")
	r, _ := feedAll(t, pieces...)
	require.Equal(t, 2, r.TotalLines)
	got := r.Head[0].Text
	assert.LessOrEqual(t, len(got), maxLine)
	assert.True(t, strings.HasPrefix(got, "€0123"))
	assert.True(t, strings.HasSuffix(got, "789€"))
	h, tl, ok := strings.Cut(got, " … [")
	require.True(t, ok)
	n, _, _ := strings.Cut(tl, " bytes cut")
	cut, err := strconv.Atoi(n)
	require.NoError(t, err)
	_, t2, _ := strings.Cut(tl, "] … ")
	assert.Equal(t, len(line), len(h)+cut+len(t2))
	assert.Equal(t, "next", r.Head[1].Text)
}

func TestBinarySniff(t *testing.T) {
	r, log := feedAll(t, "text\n", "bin\x00ary", "more\n")
	assert.True(t, r.Binary)
	assert.EqualValues(t, 5+7+5, r.BinaryBytes)
	assert.Equal(t, []string{"text"}, texts(r))
	assert.Contains(t, log, "[binary output: 17 bytes]")

	// A few invalid bytes in short text are not binary.
	r, _ = feedAll(t, "\xff\xfeok\n")
	assert.False(t, r.Binary)
	// Mostly control bytes are.
	r, _ = feedAll(t, strings.Repeat("\x01\x02\x03a", 200))
	assert.True(t, r.Binary)
}

func TestRetention(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 1000; i++ {
		b.WriteString(strconv.Itoa(i) + "\n")
	}
	r, _ := feedAll(t, b.String())
	assert.Equal(t, 1000, r.TotalLines)
	require.Len(t, r.Head, capabilities.ShellHeadLines)
	require.Len(t, r.Tail, capabilities.ShellTailLines)
	assert.Equal(t, "1", r.Head[0].Text)
	assert.Equal(t, "981", r.Tail[0].Text)
	assert.Equal(t, "1000", r.Tail[19].Text)

	r, _ = feedAll(t, "1\n2\n3")
	assert.Equal(t, []string{"1", "2", "3"}, texts(r))
	assert.Empty(t, r.Tail)
}

func TestRetentionAndLogAcrossChunkSizes(t *testing.T) {
	var in, wantLog strings.Builder
	for i := 1; i <= 5000; i++ {
		in.WriteString(strconv.Itoa(i) + "\n")
		wantLog.WriteString("stdout: " + strconv.Itoa(i) + "\n")
	}
	s := in.String()
	for _, size := range []int{1, 3, 7, 8, 17, 100, 4096, len(s)} {
		var pieces []string
		for i := 0; i < len(s); i += size {
			pieces = append(pieces, s[i:min(i+size, len(s))])
		}
		r, log := feedAll(t, pieces...)
		assert.Equal(t, 5000, r.TotalLines, size)
		require.Len(t, r.Tail, capabilities.ShellTailLines)
		assert.Equal(t, "10", r.Head[9].Text)
		for k, l := range r.Tail {
			assert.Equal(t, strconv.Itoa(4981+k), l.Text, "size %d", size)
		}
		if log != wantLog.String() {
			t.Errorf("size %d: log differs (%d bytes, want %d)", size, len(log), wantLog.Len())
		}
	}
}

func TestStripANSI(t *testing.T) {
	cases := map[string]string{
		"\x1b[31mred\x1b[0m text":                             "red text",
		"\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\": "link",
		"\x1b[38:2:255:0:0mcolon\x1b[m":                       "colon",
		"héllo \x1b[1mwörld\x1b[22m ✓":                        "héllo wörld ✓",
		"\x1bP+q544e\x1b\\after":                              "after",
		"tab\there":                                           "tab\there",
	}
	for in, want := range cases {
		assert.Equal(t, want, stripANSI(in), "%q", in)
	}
}
