package gitctl

import "testing"

func TestParseConfig(t *testing.T) {
	got, err := ParseConfig([]byte("\xef\xbb\xbf# c\n[core]\n\tbare = false ; c\n[Remote \"Origin\"]\n url = \"a b\" # c\n" +
		"\tx = a\\\n b\n[diff.X] textconv\n[s]k=\"q\\\"\\\\\\t\"  \n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{{"core.bare", "false"}, {"remote.Origin.url", "a b"}, {"remote.Origin.x", "a b"},
		{"diff.x.textconv", ""}, {"s.k", "q\"\\\t"}}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d: got %q, want %q", i, got[i], want[i])
		}
	}
	for _, bad := range []string{"[core\n", "key = x\n", "[a]\nk = \"open\n", "[a]\n1k = x\n", "[a]\nk x\n", "[a \"s]\n", "[a]\nk = \\q\n"} {
		if _, err := ParseConfig([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
