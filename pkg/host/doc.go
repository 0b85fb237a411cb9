// Package host is the RPC edge between Neovim and the chat core.
//
// Neovim calls two remote functions, declared in the manifest the binary
// generates (rplugin/magenta.vim): MagentaEvent, a notification carrying
// an event name and a payload, and MagentaRequest, a synchronous request
// for the few things Lua must wait for (the host version). Event handlers
// only decode and enqueue: go-client runs notification handlers one at a
// time, so a handler that blocked would freeze every later one. Both take
// ...any, so that go-client never fails to decode a call (it would drop
// it unanswered) and the shape is checked here. Lua normally sends a
// request as a "request" event and waits for the answer host.reply brings
// (reply.go), with a timeout rpcrequest cannot have.
//
// The renderer draws only into a buffer the sidebar marked with
// b:magenta_role = "display".
//
// Renderer is the other direction: it keeps the latest frame each thread
// published, and on its own goroutine applies the difference to the
// display buffer with one nvim_exec_lua call per frame, at most one frame
// every FrameInterval, so streaming never floods the editor.
//
// Interactive commands' terminal windows (terminal.go) are the third
// direction: a per-window sender goroutine feeds a terminal buffer made
// by lua/magenta/terminal.lua with the command's raw output, a writer
// goroutine hands it the keys typed there and the window's size; the
// terminal_* events only enqueue.
//
// Every handler and goroutine here recovers panics and reports them: the
// host lives as long as the editor and must never take it down.
package host
