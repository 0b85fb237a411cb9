// Package provider defines the contract between the agent loop and an LLM
// backend: a provider-neutral conversation ([Message], [Block]), the tools
// offered to the model ([ToolSpec]), the events a streaming completion emits
// ([Event]) and the classified errors it fails with ([Error]).
//
// Adapters live in sub-packages (anthropic, openai) and translate this model
// to one wire protocol. They do not retry: [WithRetry] wraps any Provider and
// retries only failures that happened before the first event was emitted,
// so a retry never duplicates text the user has already seen.
// [IdleTimeoutTransport] is the watchdog every adapter's HTTP client gets
// (provider/backend sets it up): a request that receives no byte for the
// profile's idle timeout fails with [IdleTimeoutError], which WithRetry
// retries once, at once.
//
// providertest holds a scripted fake that tests drive step by step.
package provider
