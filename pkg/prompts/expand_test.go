package prompts

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCall(t *testing.T) {
	for _, c := range []struct {
		in, name, args string
		ok             bool
	}{
		{"/review 12 high", "review", "12 high", true},
		{"/review", "review", "", true},
		{"/review\nmore lines\n", "review", "more lines", true},
		{"/fix.v2  a ", "fix.v2", "a", true},
		{"/usr/bin is where", "", "", false},
		{" /review", "", "", false},
		{"review", "", "", false},
		{"/", "", "", false},
		{"/ space", "", "", false},
	} {
		name, args, ok := Call(c.in)
		assert.Equal(t, c.ok, ok, c.in)
		assert.Equal(t, c.name, name, c.in)
		assert.Equal(t, c.args, args, c.in)
	}
}

func TestExpand(t *testing.T) {
	cmd := Command{Body: "Fix issue $1 in $2 ($ARGUMENTS); $3 is empty, $10 is $1 then 0."}
	assert.Equal(t, `Fix issue 42 in the parser (42 "the parser");  is empty, 420 is 42 then 0.`, cmd.Expand(`42 "the parser"`))
	plain := Command{Body: "Review the change.\n"}
	assert.Equal(t, "Review the change.\n\nARGUMENTS: carefully", plain.Expand("carefully"), "arguments without a place go at the end")
	assert.Equal(t, "Review the change.\n", plain.Expand(""))
	run := Command{Body: "!`rm -rf /` stays text: $ARGUMENTS"}
	assert.Equal(t, "!`rm -rf /` stays text: x", run.Expand("x"))
}

func TestSplitArgs(t *testing.T) {
	assert.Equal(t, []string{"a", "b c", "d'e", ""}, SplitArgs(`a "b c"  "d'e" ''`))
	assert.Nil(t, SplitArgs("   "))
	assert.Equal(t, []string{"unclosed quote"}, SplitArgs(`"unclosed quote`))
}
