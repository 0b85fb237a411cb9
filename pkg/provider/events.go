package provider

import "time"

// Event is something a stream reports while it runs. The concrete types
// are TextDelta, ThinkingDelta, ToolUseStart, ToolUseDelta and Retrying.
type Event interface{ isEvent() }

// TextDelta is a piece of assistant text. Index identifies the block the
// delta belongs to within one stream: deltas with the same Index extend
// the same block, and blocks appear in increasing Index order. It groups
// events only; it need not equal the block's position in
// Response.Message (an adapter may drop a block it cannot send back).
type TextDelta struct {
	Index int
	Text  string
}

// ToolUseStart announces a tool call as soon as its name is known, so the
// UI can show it before its input has streamed.
type ToolUseStart struct {
	Index int
	ID    string
	Name  string
}

// ToolUseDelta is a fragment of a tool call's JSON input.
type ToolUseDelta struct {
	Index       int
	PartialJSON string
}

// Retrying is emitted by WithRetry before it waits to send the request
// again. Attempt-1 is the number of this retry and MaxAttempts-1 the
// number of retries the policy makes: Attempt == MaxAttempts is the last.
type Retrying struct {
	Attempt     int // the attempt about to be made, from 2
	MaxAttempts int
	Delay       time.Duration
	Err         error
}

func (TextDelta) isEvent()    {}
func (ToolUseStart) isEvent() {}
func (ToolUseDelta) isEvent() {}
func (Retrying) isEvent()     {}
