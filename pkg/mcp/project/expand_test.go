package project

import (
	"reflect"
	"testing"
)

func TestExpand(t *testing.T) {
	env := map[string]string{"HOME": "/home/u", "TOKEN": "s3cret", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for _, c := range []struct {
		in, out string
		missing []string
	}{
		{"plain", "plain", nil},
		{"${HOME}/bin", "/home/u/bin", nil},
		{"Bearer ${TOKEN}", "Bearer s3cret", nil},
		{"${UNSET:-fallback}", "fallback", nil},
		{"${TOKEN:-fallback}", "s3cret", nil},
		{"${EMPTY:-fallback}", "", nil},                  // set to "": counts as set
		{"${UNSET:-a:-b}", "a:-b", nil},                  // the default keeps later :-
		{"${UNSET:-}", "", nil},                          // an empty default
		{"$HOME and $TOKEN", "$HOME and $TOKEN", nil},    // no braces: left alone
		{"${UNSET}", "${UNSET}", []string{"UNSET"}},      // kept, reported
		{"x${A}y${B}", "x${A}y${B}", []string{"A", "B"}}, // every one reported
		{"${}", "${}", nil},                              // no name: literal
		{"${HOME", "${HOME", nil},                        // unclosed: literal
		{"${HOME}${TOKEN}", "/home/us3cret", nil},
		{"a${HOME}b${}c${UNSET:-d}", "a/home/ub${}cd", nil},
	} {
		out, missing := Expand(c.in, lookup)
		if out != c.out || !reflect.DeepEqual(missing, c.missing) {
			t.Errorf("Expand(%q) = %q, %v; want %q, %v", c.in, out, missing, c.out, c.missing)
		}
	}
}
