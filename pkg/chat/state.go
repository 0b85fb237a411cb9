package chat

// threadState is what a thread is doing. Every question of the kind "is
// the thread busy, may it start X now" asks state(), so the answer is the
// same everywhere (statusWord once ignored a context read that onCompact
// counted).
//
//	         send                      read           reply asks for tools
//	idle ──────────▶ readingContext ─────────▶ awaitingModel ◀────────▶ runningTools
//	 ▲  ╲ compact / due                          │  ▲ compact in turn / retry
//	 │   ╲───────────▶ compacting ◀──────────────┘  │
//	 │                     │ done: held messages    │
//	 └─────────────────────┴────── turn ends ◀──────┘
//
// readingContext is also where a prompt check (hookpoints.go: the
// UserPromptSubmit and SessionStart hooks) looks at the message; when it
// refuses it, the thread goes back to idle and the text to the input.
//
// The state is derived from the fields that hold each activity (turn,
// compaction.run, readingContext), which their own code sets and clears;
// closing wins over all.
type threadState int

const (
	stateIdle threadState = iota
	stateReadingContext
	stateAwaitingModel // a request is waiting, streaming or about to retry
	stateRunningTools
	stateCompacting // a summary is being written (alone, or inside a turn)
	stateClosing
)

var stateNames = [...]string{"idle", "reading context", "awaiting the model", "running tools", "compacting", "closing"}

func (s threadState) String() string { return stateNames[s] }

// state is what the thread is doing now; owner goroutine only.
func (t *Thread) state() threadState {
	switch {
	case t.ctx.Err() != nil:
		return stateClosing
	case t.compaction.run != nil:
		return stateCompacting
	case t.readingContext:
		return stateReadingContext
	case t.turn != nil && t.turn.phase == phaseTools:
		return stateRunningTools
	case t.turn != nil:
		return stateAwaitingModel
	}
	return stateIdle
}
