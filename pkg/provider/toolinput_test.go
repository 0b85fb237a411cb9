package provider

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestToolInput(t *testing.T) {
	cases := map[string]string{
		``:            `{}`,
		`null`:        `{}`,
		`{}`:          `{}`,
		`{"a":1}`:     `{"a":1}`,
		` {"a":1} `:   `{"a":1}`,
		`{"a":`:       `{"_invalid_arguments":"{\"a\":"}`,
		`[1,2]`:       `{"_invalid_arguments":"[1,2]"}`,
		`"string"`:    `{"_invalid_arguments":"\"string\""}`,
		`{"a":1}{"b"`: `{"_invalid_arguments":"{\"a\":1}{\"b\""}`,
	}
	for in, want := range cases {
		assert.Equal(t, want, string(ToolInput([]byte(in))), "input %q", in)
	}
}
