// Package remote runs the provider adapters in a separate process, the
// provider process (cmd/magenta-provider), and gives the host a
// provider.Provider that talks to it.
//
// Why a process: the official SDKs the adapters are built on are most of
// the host's binary (~25 MB of 38 MB) and, through their package
// initialisers and the tables the runtime touches for them, ~8 MiB of its
// resident memory before the first request — paid by every Neovim that
// merely loads the plugin. The host links only this package; the provider
// process links the SDKs and starts when the sidebar first opens
// (Client.Warm: the first request finds it running) or at the first
// request, then serves every thread's streams until the host has had
// none for IdleExit.
//
// The protocol is newline-delimited JSON on the process's stdin and
// stdout. The host sends a call per stream ({"id", "spec", "request"}) and
// {"id", "cancel": true} when the stream's context ends; the process
// answers with events ({"id", "event"}), then exactly one response or
// error. It greets with {"hello": {"protocol": N}} first, so a host and a
// process built from different versions refuse each other with a message
// rather than misreading each other. Retrying stays in the host
// (provider.WithRetry around the client), so a Retrying notice is drawn by
// the host as before; the idle watchdog runs in the process, on the HTTP
// client it belongs to, and its timeout comes back as the same
// *provider.IdleTimeoutError.
//
// The process ends with the host: its stdin reaches EOF (and, on Linux,
// the kernel sends it SIGKILL when the host dies).
package remote
