package view

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestShortIDs(t *testing.T) {
	ids := []string{
		"0193a1b2-c3d4-7aaa-8000-000000000001",
		"0193a1b2-c3d5-7bbb-8000-000000000002", // same minute: shares 8+ characters
		"0194ffff-0000-7ccc-8000-000000000003",
		"abc",
	}
	got := ShortIDs(ids)
	assert.Equal(t, "0193a1b2-c3d4", got[ids[0]])
	assert.Equal(t, "0193a1b2-c3d5", got[ids[1]])
	assert.Equal(t, "0194ffff", got[ids[2]])
	assert.Equal(t, "abc", got["abc"], "a short id is shown whole")
	for _, id := range ids {
		for _, other := range ids {
			if other != id {
				assert.False(t, len(other) >= len(got[id]) && other[:len(got[id])] == got[id], "%s is unique", got[id])
			}
		}
	}
}
