package ripgrep

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/secrets"
)

// rec builds one rg --json line; kind is begin, match, context or end.
func rec(kind, path string, line int, text string) string {
	p, _ := json.Marshal(map[string]string{"text": path})
	switch kind {
	case "begin", "end":
		return fmt.Sprintf(`{"type":%q,"data":{"path":%s}}`+"\n", kind, p)
	}
	l, _ := json.Marshal(map[string]string{"text": text + "\n"})
	return fmt.Sprintf(`{"type":%q,"data":{"path":%s,"lines":%s,"line_number":%d,"absolute_offset":0,"submatches":[]}}`+"\n", kind, p, l, line)
}

const summary = `{"data":{"elapsed_total":{"human":"0.1s","nanos":1,"secs":0},"stats":{"matched_lines":9,"matches":9}},"type":"summary"}` + "\n"

func collect(t *testing.T, stream string, max, context int, prefix string) (*capabilities.SearchResult, bool) {
	t.Helper()
	res := &capabilities.SearchResult{}
	stopped, err := newCollector(res, max, context, prefix).read(strings.NewReader(stream))
	require.NoError(t, err)
	return res, stopped
}

func TestCollectorContextOfDroppedMatches(t *testing.T) {
	stream := rec("begin", "/r/f", 0, "") +
		rec("context", "/r/f", 1, "c1") +
		rec("match", "/r/f", 2, "m2") +
		rec("context", "/r/f", 3, "c3") + // after-context of the kept match
		rec("context", "/r/f", 4, "c4") + // before-context of the dropped one
		rec("match", "/r/f", 5, "m5") +
		rec("context", "/r/f", 6, "c6") +
		rec("end", "/r/f", 0, "") + summary
	res, stopped := collect(t, stream, 1, 1, "/r/")
	assert.True(t, stopped)
	assert.True(t, res.Truncated)
	assert.Equal(t, map[string][]string{"f": {"1-c1", "2:m2", "3-c3"}}, lines(res))
}

func TestCollectorCapAtEndOfFile(t *testing.T) {
	stream := rec("begin", "/r/a", 0, "") + rec("match", "/r/a", 1, "m") + rec("context", "/r/a", 2, "after") + rec("end", "/r/a", 0, "") +
		rec("begin", "/r/b", 0, "") + rec("context", "/r/b", 1, "before") + rec("match", "/r/b", 2, "m") + rec("end", "/r/b", 0, "") + summary
	res, _ := collect(t, stream, 1, 1, "/r/")
	assert.True(t, res.Truncated)
	assert.Equal(t, map[string][]string{"a": {"1:m", "2-after"}}, lines(res))

	// Exactly at the cap: not truncated, the summary is read.
	res, stopped := collect(t, stream, 2, 1, "/r/")
	assert.False(t, stopped)
	assert.False(t, res.Truncated)
	assert.Equal(t, 2, res.Matches)
	assert.Equal(t, map[string][]string{"a": {"1:m", "2-after"}, "b": {"1-before", "2:m"}}, lines(res))
}

func TestCollectorStopsReadingPastTheCap(t *testing.T) {
	stream := rec("begin", "/r/a", 0, "") + rec("match", "/r/a", 1, "m") + rec("match", "/r/a", 2, "m")
	failing := io.MultiReader(strings.NewReader(stream), iotestErr{})
	res := &capabilities.SearchResult{}
	stopped, err := newCollector(res, 1, 0, "/r/").read(failing)
	require.NoError(t, err, "read past the record that proved truncation")
	assert.True(t, stopped)
	assert.True(t, res.Truncated)
}

type iotestErr struct{}

func (iotestErr) Read([]byte) (int, error) { return 0, errors.New("read too far") }

func TestCollectorBytesAndSummary(t *testing.T) {
	path := base64.StdEncoding.EncodeToString([]byte("/r/caf\xe9.txt"))
	line := base64.StdEncoding.EncodeToString([]byte("caf\xe9 x\r\n"))
	stream := `{"type":"begin","data":{"path":{"bytes":"` + path + `"}}}` + "\n" +
		`{"type":"match","data":{"path":{"bytes":"` + path + `"},"lines":{"bytes":"` + line + `"},"line_number":7,"absolute_offset":0,"submatches":[]}}` + "\n" +
		summary
	res, _ := collect(t, stream, 0, 0, "/r/")
	assert.Equal(t, map[string][]string{"caf\uFFFD.txt": {"7:caf\uFFFD x"}}, lines(res))
	assert.Empty(t, res.Errors)
}

func TestCollectorWithoutBegin(t *testing.T) {
	stream := rec("match", "/r/a", 1, "x") + rec("match", "/r/b", 1, "y") + "not json\n"
	res, _ := collect(t, stream, 0, 0, "/r/")
	assert.Equal(t, []string{"a", "b"}, paths(res))
	require.Len(t, res.Errors, 1)
	assert.Contains(t, res.Errors[0], "undecodable")
}

func TestCollectorOverlongRecord(t *testing.T) {
	huge := strings.Repeat("x", MaxRecordBytes)
	stream := rec("begin", "/r/min.js", 0, "") + rec("match", "/r/min.js", 1, huge) +
		rec("match", "/r/min.js", 2, "short") + rec("end", "/r/min.js", 0, "") + summary
	res, _ := collect(t, stream, 0, 0, "/r/")
	assert.Equal(t, map[string][]string{"min.js": {"2:short"}}, lines(res))
	require.Len(t, res.Errors, 1)
	assert.Contains(t, res.Errors[0], "min.js: a matching line longer than")
}

func TestRecordReaderJoinsLongLines(t *testing.T) {
	long := strings.Repeat("y", 3*readBufBytes)
	r := newRecordReader(strings.NewReader("a\n"+long+"\nb"), 4*readBufBytes)
	for _, want := range []string{"a\n", long + "\n", "b"} {
		got, isLong, err := r.next()
		require.NoError(t, err)
		assert.False(t, isLong)
		assert.Equal(t, want, string(got))
	}
	_, _, err := r.next()
	assert.ErrorIs(t, err, io.EOF)

	r = newRecordReader(strings.NewReader(long+"\nafter\n"), 2*readBufBytes)
	got, isLong, err := r.next()
	require.NoError(t, err)
	assert.True(t, isLong)
	assert.True(t, strings.HasPrefix(long, string(got)))
	got, _, _ = r.next()
	assert.Equal(t, "after\n", string(got))
}

func TestCleanLine(t *testing.T) {
	assert.Equal(t, "a", cleanLine("a\r\n"))
	assert.Equal(t, "a\uFFFDb", cleanLine("a\x00b\n"))
	long := strings.Repeat("é", MaxLineBytes) // two bytes each
	got := cleanLine("start" + long + "end\n")
	assert.True(t, utf8.ValidString(got))
	assert.LessOrEqual(t, len(got), MaxLineBytes+len(" … "))
	assert.True(t, strings.HasPrefix(got, "start"))
	assert.True(t, strings.HasSuffix(got, "end"))
	assert.Contains(t, got, " … ")
}

func TestQuickType(t *testing.T) {
	assert.Equal(t, "match", quickType([]byte(`{"type":"match","data":{}}`)))
	assert.Equal(t, "", quickType([]byte(summary)))
	assert.Equal(t, "", quickType([]byte(`{"type":"`)))
}

func TestBuildArgs(t *testing.T) {
	r := capabilities.SearchRequest{Pattern: "--pre=x", Include: "*.go", IgnoreCase: true, FixedStrings: true, Context: 3}
	want := []string{"--json", "--no-config", "--no-require-git", "--glob", "!.git",
		"--ignore-case", "--fixed-strings", "--context", "3", "--glob", "*.go"}
	for _, g := range secrets.Globs() {
		want = append(want, "--iglob", "!"+g)
	}
	assert.Equal(t, append(want, "-e", "--pre=x", "--", "/d"), buildArgs(r, "/d"))
}

func TestRgEnvDropsConfig(t *testing.T) {
	t.Setenv("RIPGREP_CONFIG_PATH", "/tmp/rc")
	for _, kv := range rgEnv() {
		assert.False(t, strings.HasPrefix(kv, "RIPGREP_CONFIG_PATH="), kv)
	}
}
