// Package inline runs inline edits: a one-shot request asking the model
// to rewrite a selection of one buffer through the replace_selection
// tool. It is not a chat thread: each edit is a small session on its own
// goroutine, keyed by buffer, whose only output is the replacement text
// (or an error) handed to a Sink. The Lua side (lua/magenta/inline.lua)
// shows it as a diff in the buffer and applies it only when the user
// accepts, so nothing here touches a buffer.
package inline
