package tools

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
)

// Next runs the rest of a tool call: the next interceptor, or the tool.
type Next func(ctx context.Context) Result

// Interceptor wraps the tool calls a thread runs. It is how a feature
// acts around a call rather than after it: take a checkpoint before a
// call that may change files, veto a call (a hook that blocks: return a
// Result without calling next, and the model gets it as the tool's
// result), or add to the result (the diagnostics an edit introduced).
//
// Intercept runs on the call's worker goroutine, under the call's
// context, so it may wait — bounded by its own limits, and returning
// when ctx ends (the user aborted). It must call next at most once. Only
// a call the request offered is intercepted: a refused call runs nothing.
// Safe for concurrent use: a turn's calls run in parallel.
type Interceptor interface {
	Intercept(ctx context.Context, name string, call Call, next Next) Result
}

// InterceptorFunc adapts a function to Interceptor.
type InterceptorFunc func(ctx context.Context, name string, call Call, next Next) Result

// Intercept implements Interceptor.
func (f InterceptorFunc) Intercept(ctx context.Context, name string, call Call, next Next) Result {
	return f(ctx, name, call, next)
}

// RunIntercepted runs the named tool as RunOffered does, wrapped in ics
// (the first is outermost). A panicking interceptor becomes an error
// result, as a panicking tool does; when it panicked after the tool ran,
// the tool's result is kept and the failure is added to it.
func (r *Registry) RunIntercepted(ctx context.Context, name string, call Call, offered Offered, ics []Interceptor) Result {
	if !offered[name] || len(ics) == 0 {
		return r.RunOffered(ctx, name, call, offered)
	}
	next := Next(func(ctx context.Context) Result { return r.Run(ctx, name, call) })
	for i := len(ics) - 1; i >= 0; i-- {
		next = guarded(ics[i], name, call, next)
	}
	return next(ctx)
}

// guarded is ic around next, with ic's panics recovered.
func guarded(ic Interceptor, name string, call Call, next Next) Next {
	return func(ctx context.Context) (res Result) {
		var ran *Result
		once := func(ctx context.Context) Result {
			if ran != nil {
				return *ran // a second call would run the tool twice
			}
			r := next(ctx)
			ran = &r
			return r
		}
		defer func() {
			p := recover()
			if p == nil {
				return
			}
			slog.Error("tool interceptor panicked", "tool", name, "interceptor", fmt.Sprintf("%T", ic), "panic", p, "stack", string(debug.Stack()))
			msg := fmt.Sprintf("an internal step around tool %s failed (%v); this is a bug in magenta, not in your input", name, p)
			if ran == nil {
				res = Errorf(msg + ". The tool did not run.")
				return
			}
			res = *ran
			res.Text += "\n\n(" + msg + ")"
		}()
		return ic.Intercept(ctx, name, call, once)
	}
}
