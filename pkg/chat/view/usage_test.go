package view

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUsageString(t *testing.T) {
	cases := []struct {
		u    Usage
		want string
	}{
		{Usage{Input: 999, Output: 12}, "999 in · 12 out"},
		{Usage{Input: 12_345, Output: 1200, CacheRead: 9800}, "12.3k in (9.8k cached) · 1.2k out"},
		{Usage{Input: 250_000, Output: 5, CacheWrite: 1000, Cost: 1.234, Priced: true}, "250k in (1.0k written) · 5 out · $1.23"},
		{Usage{Input: 2_500_000, Output: 0, Priced: true}, "2.50M in · 0 out · $0.00"},
		{Usage{Input: 10, Output: 1, Cost: 0.0004, Priced: true}, "10 in · 1 out · <$0.001"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, c.u.String())
	}
	assert.Equal(t, "turn: 10 in · 1 out", TurnUsageLine(Usage{Input: 10, Output: 1}, 1))
}
