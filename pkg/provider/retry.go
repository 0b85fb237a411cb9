package provider

import (
	"context"
	"math/rand/v2"
	"time"
)

// RetryPolicy says how often and how long WithRetry waits between
// attempts. The zero value means DefaultRetryPolicy.
type RetryPolicy struct {
	MaxAttempts int           // total attempts, including the first
	BaseDelay   time.Duration // first delay; doubles each attempt
	MaxDelay    time.Duration // cap for the computed and the server's delay
	// Sleep waits for d or until ctx ends; nil means a timer. Tests
	// replace it so they need not wait.
	Sleep func(ctx context.Context, d time.Duration) error
}

// DefaultRetryPolicy retries three times, after about 2, 4 and 8 s
// (±20 % jitter): a server that keeps failing (a 500 returned at once) is
// reported after ~14 s of waiting, 17 s at most, rather than leaving the
// user looking at retries for most of a minute; short 529 and 429 bursts
// are still ridden out. A Retry-After longer than the computed delay is
// waited for instead, up to MaxDelay.
var DefaultRetryPolicy = RetryPolicy{MaxAttempts: 4, BaseDelay: 2 * time.Second, MaxDelay: 30 * time.Second}

// WithRetry wraps p so that a retryable failure (see IsRetryable) that
// happens before the first event is emitted is retried with exponential
// backoff and jitter, honouring the server's Retry-After up to MaxDelay.
// A failure after an event is returned as is: the user has seen partial
// output, and sending the request again would duplicate it. A stalled
// stream (IdleTimeoutError) is retried only once, without waiting.
// Before each wait, emit receives a Retrying event.
func WithRetry(p Provider, policy RetryPolicy) Provider {
	if policy.MaxAttempts <= 0 {
		policy.MaxAttempts = DefaultRetryPolicy.MaxAttempts
	}
	if policy.BaseDelay <= 0 {
		policy.BaseDelay = DefaultRetryPolicy.BaseDelay
	}
	if policy.MaxDelay <= 0 {
		policy.MaxDelay = DefaultRetryPolicy.MaxDelay
	}
	if policy.Sleep == nil {
		policy.Sleep = sleepContext
	}
	return &retrying{next: p, policy: policy}
}

type retrying struct {
	next   Provider
	policy RetryPolicy
}

// idleRetries is how often a stream that stalled before showing anything
// is sent again: once, at once. A second stall says the server is stuck,
// not busy, and the user should see that rather than wait minutes more.
const idleRetries = 1

func (r *retrying) Stream(ctx context.Context, req Request, emit func(Event)) (*Response, error) {
	stalls := 0
	for attempt := 1; ; attempt++ {
		emitted := false
		resp, err := r.next.Stream(ctx, req, func(e Event) {
			emitted = true
			emit(e)
		})
		if err == nil || emitted || attempt >= r.policy.MaxAttempts || !IsRetryable(err) || ctx.Err() != nil {
			return resp, err
		}
		delay := r.delay(attempt, err)
		if IsIdleTimeout(err) {
			if stalls++; stalls > idleRetries {
				return resp, err
			}
			delay = 0
		}
		emit(Retrying{Attempt: attempt + 1, MaxAttempts: r.policy.MaxAttempts, Delay: delay, Err: err})
		if serr := r.policy.Sleep(ctx, delay); serr != nil {
			return nil, serr
		}
	}
}

// delay is BaseDelay·2^(attempt-1) with ±20 % jitter, or the server's
// Retry-After when that is longer, capped at MaxDelay.
func (r *retrying) delay(attempt int, err error) time.Duration {
	d := r.policy.BaseDelay << (attempt - 1)
	d = time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
	var pe *Error
	if asError(err, &pe) && pe.RetryAfter > d {
		d = pe.RetryAfter
	}
	return min(d, r.policy.MaxDelay)
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
