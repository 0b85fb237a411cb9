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
