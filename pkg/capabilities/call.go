package capabilities

import "context"

// CallInfo identifies the tool call a capability is used for, so a
// permission decorator can draw its approval inside that call's block.
type CallInfo struct {
	ThreadID, RequestID string
}

type callKey struct{}

// WithCall returns ctx carrying info (the tool registry sets it for every
// call).
func WithCall(ctx context.Context, info CallInfo) context.Context {
	return context.WithValue(ctx, callKey{}, info)
}

// CallFrom returns the CallInfo in ctx, zero when there is none.
func CallFrom(ctx context.Context) CallInfo {
	info, _ := ctx.Value(callKey{}).(CallInfo)
	return info
}

type readOnlyKey struct{}

// WithReadOnly marks ctx for a call made in plan mode: a command runs
// only when the permission checker proves it only reads, and nothing is
// asked (the shell refuses what would ask, naming why).
func WithReadOnly(ctx context.Context) context.Context {
	return context.WithValue(ctx, readOnlyKey{}, true)
}

// ReadOnly reports whether ctx is marked by WithReadOnly.
func ReadOnly(ctx context.Context) bool {
	v, _ := ctx.Value(readOnlyKey{}).(bool)
	return v
}
