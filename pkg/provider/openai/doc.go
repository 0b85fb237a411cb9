// Package openai adapts the provider contract to the OpenAI Chat Completions
// wire protocol (POST {base}/chat/completions with "stream": true and
// server-sent "chat.completion.chunk" events).
//
// It targets OpenAI itself and the OpenAI-compatible servers people run
// locally: Ollama, the llama.cpp server and vLLM. Requests go through the
// official openai-go SDK, but the package never reads OPENAI_API_KEY,
// OPENAI_BASE_URL or any other OPENAI_* variable: only [Options] count. The
// SDK's own retries are switched off because provider.WithRetry retries.
//
// # Base URL
//
// An empty BaseURL means OpenAI (https://api.openai.com/v1/). Otherwise the
// URL is used as given, plus a trailing slash when it has none, and
// "chat/completions" is resolved against it: "http://localhost:11434/v1"
// sends to http://localhost:11434/v1/chat/completions. "/v1" is never added,
// so a server mounted elsewhere (a llama.cpp behind a proxy path, say) works
// by naming its prefix. An empty APIKey sends no Authorization header.
//
// # Token limit
//
// A non-zero Request.MaxTokens is sent as "max_completion_tokens" to OpenAI
// (empty BaseURL or host api.openai.com), whose reasoning models reject
// "max_tokens", and as "max_tokens" to every other server: Ollama and older
// llama.cpp builds silently ignore max_completion_tokens, and vLLM accepts
// both. MaxTokens 0 sends neither.
//
// # Conversation mapping
//
// The system prompt becomes a leading "system" message. A user message
// becomes one "tool" message per tool_result block (in order, as the protocol
// requires them to follow the assistant's tool_calls), then one "user"
// message with its text and image parts; images are sent as data: URLs. A
// tool result whose IsError is set is prefixed with "Error: ". Tool messages
// can only carry text, so images inside a tool result are moved into that
// following user message, introduced by a text part naming the tool call,
// and the tool message says that images follow. An assistant message becomes
// one "assistant" message with its text joined and one function tool_call
// per tool_use block.
//
// # Streaming
//
// Chunks are accumulated by this package rather than the SDK's
// ChatCompletionAccumulator so that the events come out as the chunks
// arrive and the quirks of local servers are handled: a tool call id and
// name sent only in the first fragment, whole calls in one chunk, missing
// ids (replaced with "call_<n>_<random>") and, as older Ollama releases do,
// several calls all under index 0 told apart only by their ids. Text is
// reported as TextDelta{Index: 0}; tool call n (in order of appearance) as
// ToolUseStart/ToolUseDelta with Index n+1. finish_reason "tool_calls" or
// "function_call" gives StopToolUse, and so does "stop" when tool calls were
// made (Ollama); "length" gives StopMaxTokens; anything else StopOther.
//
// Tool arguments that are empty or "null" become {}. Arguments that are not
// a JSON object are not dropped: the tool_use block's Input becomes
// {"_invalid_arguments": "<raw text>"} so the tool layer can tell the model
// exactly what it sent.
//
// # Errors
//
// Failures are *provider.Error values: HTTP statuses are classified with
// provider.KindForStatus (with the server's message and Retry-After); an
// {"error": ...} event inside a 200 stream is ErrStreamFailed, retryable only
// when its type or code mentions a rate limit or overload; dial failures and
// streams that end before any finish_reason are ErrConnection (retryable);
// undecodable chunks are ErrProtocol. Cancelling the context returns an
// error wrapping ctx.Err().
package openai
