package provider_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/provider"
)

// flaky fails with errs in order, then succeeds; emitFirst makes a failure
// happen after one event.
type flaky struct {
	errs      []error
	emitFirst bool
	calls     int
}

func (f *flaky) Stream(ctx context.Context, req provider.Request, emit func(provider.Event)) (*provider.Response, error) {
	f.calls++
	if f.calls <= len(f.errs) {
		if f.emitFirst {
			emit(provider.TextDelta{Text: "partial"})
		}
		return nil, f.errs[f.calls-1]
	}
	emit(provider.TextDelta{Text: "ok"})
	return &provider.Response{StopReason: provider.StopEndTurn}, nil
}

func noSleep(slept *[]time.Duration) func(context.Context, time.Duration) error {
	return func(_ context.Context, d time.Duration) error { *slept = append(*slept, d); return nil }
}

func TestWithRetry(t *testing.T) {
	overloaded := &provider.Error{Kind: provider.ErrOverloaded, Status: 529, Retryable: true}
	limited := &provider.Error{Kind: provider.ErrRateLimit, Status: 429, Retryable: true, RetryAfter: 7 * time.Second}
	auth := &provider.Error{Kind: provider.ErrAuth, Status: 401}

	t.Run("retries overload then succeeds, announcing each retry", func(t *testing.T) {
		var slept []time.Duration
		f := &flaky{errs: []error{overloaded, overloaded}}
		p := provider.WithRetry(f, provider.RetryPolicy{MaxAttempts: 5, BaseDelay: time.Second, MaxDelay: 10 * time.Second, Sleep: noSleep(&slept)})
		var events []provider.Event
		resp, err := p.Stream(context.Background(), provider.Request{}, func(e provider.Event) { events = append(events, e) })
		require.NoError(t, err)
		assert.Equal(t, provider.StopEndTurn, resp.StopReason)
		assert.Equal(t, 3, f.calls)
		require.Len(t, events, 3)
		assert.Equal(t, 2, events[0].(provider.Retrying).Attempt)
		assert.Equal(t, 3, events[1].(provider.Retrying).Attempt)
		assert.InDelta(t, float64(time.Second), float64(slept[0]), float64(300*time.Millisecond))
		assert.InDelta(t, float64(2*time.Second), float64(slept[1]), float64(500*time.Millisecond))
	})
	t.Run("honours retry-after up to the cap", func(t *testing.T) {
		var slept []time.Duration
		f := &flaky{errs: []error{limited}}
		p := provider.WithRetry(f, provider.RetryPolicy{BaseDelay: time.Second, MaxDelay: 5 * time.Second, Sleep: noSleep(&slept)})
		_, err := p.Stream(context.Background(), provider.Request{}, func(provider.Event) {})
		require.NoError(t, err)
		assert.Equal(t, []time.Duration{5 * time.Second}, slept)
	})
	t.Run("gives up after MaxAttempts", func(t *testing.T) {
		var slept []time.Duration
		f := &flaky{errs: []error{overloaded, overloaded, overloaded}}
		p := provider.WithRetry(f, provider.RetryPolicy{MaxAttempts: 2, Sleep: noSleep(&slept)})
		_, err := p.Stream(context.Background(), provider.Request{}, func(provider.Event) {})
		assert.ErrorIs(t, err, overloaded)
		assert.Equal(t, 2, f.calls)
	})
	t.Run("does not retry what is not retryable", func(t *testing.T) {
		var slept []time.Duration
		f := &flaky{errs: []error{auth}}
		p := provider.WithRetry(f, provider.RetryPolicy{Sleep: noSleep(&slept)})
		_, err := p.Stream(context.Background(), provider.Request{}, func(provider.Event) {})
		assert.ErrorIs(t, err, auth)
		assert.Equal(t, 1, f.calls)
	})
	t.Run("does not retry once output was emitted", func(t *testing.T) {
		var slept []time.Duration
		f := &flaky{errs: []error{overloaded}, emitFirst: true}
		p := provider.WithRetry(f, provider.RetryPolicy{Sleep: noSleep(&slept)})
		_, err := p.Stream(context.Background(), provider.Request{}, func(provider.Event) {})
		assert.ErrorIs(t, err, overloaded)
		assert.Equal(t, 1, f.calls)
	})
	t.Run("cancellation during the wait ends it", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		f := &flaky{errs: []error{overloaded}}
		p := provider.WithRetry(f, provider.RetryPolicy{Sleep: func(ctx context.Context, _ time.Duration) error {
			cancel()
			<-ctx.Done()
			return ctx.Err()
		}})
		_, err := p.Stream(ctx, provider.Request{}, func(provider.Event) {})
		assert.True(t, errors.Is(err, context.Canceled))
	})
}

// The default schedule against a server that keeps answering 500: three
// retries after about 2, 4 and 8 s, so the user hears of the failure
// within ~15 s of waiting (17 s at most with the jitter), and each
// Retrying event counts up to the last one; a Retry-After longer than
// the computed delay is honoured (up to MaxDelay).
func TestDefaultRetrySchedule(t *testing.T) {
	serverError := &provider.Error{Kind: provider.ErrServer, Status: 500, Retryable: true}
	for range 20 { // the jitter is random: the bounds must hold every time
		var slept []time.Duration
		policy := provider.DefaultRetryPolicy
		policy.Sleep = noSleep(&slept)
		f := &flaky{errs: []error{serverError, serverError, serverError, serverError, serverError, serverError}}
		var retries []provider.Retrying
		_, err := provider.WithRetry(f, policy).Stream(context.Background(), provider.Request{}, func(e provider.Event) {
			if r, ok := e.(provider.Retrying); ok {
				retries = append(retries, r)
			}
		})
		require.ErrorIs(t, err, serverError)
		assert.Equal(t, 4, f.calls, "the first attempt and three retries")
		require.Len(t, retries, 3)
		var total time.Duration
		for i, r := range retries {
			assert.Equal(t, i+2, r.Attempt)
			assert.Equal(t, 4, r.MaxAttempts)
			assert.Equal(t, slept[i], r.Delay, "the event announces the wait that follows")
			total += slept[i]
		}
		assert.LessOrEqual(t, total, 17*time.Second)
		assert.GreaterOrEqual(t, total, 11*time.Second)
	}

	var slept []time.Duration
	policy := provider.DefaultRetryPolicy
	policy.Sleep = noSleep(&slept)
	limited := &provider.Error{Kind: provider.ErrRateLimit, Status: 429, Retryable: true, RetryAfter: 25 * time.Second}
	_, err := provider.WithRetry(&flaky{errs: []error{limited}}, policy).Stream(context.Background(), provider.Request{}, func(provider.Event) {})
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{25 * time.Second}, slept, "Retry-After is honoured")
}
