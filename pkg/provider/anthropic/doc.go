// Package anthropic implements [provider.Provider] for Anthropic's Messages
// API on top of the official Go SDK.
//
// Stream translates a provider-neutral [provider.Request] into a streaming
// POST /v1/messages call, reports text and tool-call fragments as
// [provider.Event] values while the server-sent events arrive, and returns
// the assembled assistant message with its stop reason and token usage.
// Every failure is returned as a classified *[provider.Error] (HTTP status,
// error events inside the stream, dropped connections, unreadable streams),
// except cancellation, which is returned as an error wrapping ctx.Err().
//
// The client is built so that only the [Options] decide where requests go
// and which key they carry: the SDK's environment defaults
// (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY, profiles, custom headers) and its
// OpenTelemetry instrumentation are switched off.
//
// Every request carries prompt-cache breakpoints (cache_control) on the
// last tool, the system prompt, the last message and the user message the
// previous request ended with (see markCacheBreakpoints), so an agent loop
// pays full price only for what each turn adds. Usage reports the whole
// prompt as InputTokens and the cache reads and writes as parts of it.
//
// Retries are not done here: the SDK's own retries are disabled. Whether a
// failure may be retried depends on whether the user has already seen part
// of the answer, which only the caller knows, so [provider.WithRetry] wraps
// this provider and retries failures marked Retryable that happened before
// the first event, honouring the RetryAfter this package reports.
package anthropic
