package view

import (
	"fmt"
	"strings"
)

// Usage is what requests cost, as the header and the line after a turn
// show it. Input is the whole prompt; CacheRead and CacheWrite are parts
// of it. Cost is in USD and only meaningful when Priced (the profile has
// pricing).
type Usage struct {
	Input, Output, CacheRead, CacheWrite int
	Cost                                 float64
	Priced                               bool
}

// IsZero reports whether nothing was counted (the provider reported no
// usage): no line is drawn then.
func (u Usage) IsZero() bool { return u == Usage{} }

// String is the compact form:
// "12.3k in (9.8k cached, 1.2k written) · 1.2k out · $0.04".
func (u Usage) String() string {
	var b strings.Builder
	b.WriteString(shortCount(u.Input) + " in")
	var parts []string
	if u.CacheRead > 0 {
		parts = append(parts, shortCount(u.CacheRead)+" cached")
	}
	if u.CacheWrite > 0 {
		parts = append(parts, shortCount(u.CacheWrite)+" written")
	}
	if len(parts) > 0 {
		b.WriteString(" (" + strings.Join(parts, ", ") + ")")
	}
	b.WriteString(" · " + shortCount(u.Output) + " out")
	if u.Priced {
		b.WriteString(" · " + dollars(u.Cost))
	}
	return b.String()
}

// shortCount writes a token count in at most four significant characters:
// 999, 1.2k, 12.3k, 123k, 1.23M.
func shortCount(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d", n)
	case n < 100_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	case n < 1_000_000:
		return fmt.Sprintf("%dk", n/1000)
	default:
		return fmt.Sprintf("%.2fM", float64(n)/1_000_000)
	}
}

// dollars shows cents, or a tenth of a cent for cheap requests (so a
// cached turn does not read as free).
func dollars(c float64) string {
	if c > 0 && c < 0.001 {
		return "<$0.001"
	}
	if c > 0 && c < 0.01 {
		return fmt.Sprintf("$%.3f", c)
	}
	return fmt.Sprintf("$%.2f", c)
}

// UsageLine is the header's line for a thread's total usage.
func UsageLine(u Usage) string { return "tokens: " + u.String() }

// TurnUsageLine is the line after a turn for what its requests used.
func TurnUsageLine(u Usage, requests int) string {
	if requests > 1 {
		return fmt.Sprintf("turn (%d requests): %s", requests, u.String())
	}
	return "turn: " + u.String()
}
