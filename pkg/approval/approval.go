// Package approval holds requests that wait for the user's yes or no.
//
// A permission decorator (a guarded Shell, FileIO, …) calls Broker.Ask
// and blocks; the chat draws every pending request in the display buffer
// with YES / NO / ALWAYS choices, and a key press calls Broker.Answer.
// The first answer wins. When the caller's context ends (the user aborted
// the thread) the request is withdrawn and Ask returns, so abort never
// leaves a tool hanging. One Broker serves every thread of the host. A
// front end that does not draw requests sets a Policy, which answers
// them instead (the headless run at once, an ACP agent through its
// client).
package approval

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Decision is the user's answer.
type Decision int

const (
	Deny Decision = iota
	Allow
	// AllowAlways allows this request and tells the asker to remember it.
	AllowAlways
)

func (d Decision) String() string {
	switch d {
	case Allow:
		return "yes"
	case AllowAlways:
		return "always"
	}
	return "no"
}

// Request is one question to the user.
type Request struct {
	ID        string
	ThreadID  string
	ToolUseID string // the tool call that waits, to draw the request there
	Kind      string // "bash", "read", "write", "web"
	Subject   string // the command, path or host, verbatim
	Reason    string // why it needs approval
	// NoAlways hides the ALWAYS choice (a request that must be asked
	// every time).
	NoAlways bool
	Created  time.Time
}

// Broker keeps the pending requests. Safe for concurrent use.
type Broker struct {
	mu      sync.Mutex
	seq     int
	pending map[string]*pending
	// onChange is told the thread whose pending set changed; it must not
	// block.
	onChange func(threadID string, added *Request)
	// policy, when set, answers requests itself (SetPolicy).
	policy Policy
}

// Policy answers a request in place of the pending-request flow, for a
// front end that does not draw requests: the headless run answers per
// its --approve flag, an ACP agent asks its client. It returns the
// decision, what to tell the model when it is Deny ("" for the asker's
// usual words), and ok false to let the request wait for an answer as
// usual. It runs on the asking tool's goroutine and may block, but must
// return when ctx ends (the thread was aborted).
type Policy func(ctx context.Context, req Request) (d Decision, reason string, ok bool)

// SetPolicy makes p answer every request from now on (nil: nobody does).
func (b *Broker) SetPolicy(p Policy) {
	b.mu.Lock()
	b.policy = p
	b.mu.Unlock()
}

type pending struct {
	req    Request
	answer chan Decision
}

// NewBroker returns a broker calling onChange (may be nil) when a thread's
// pending requests change; added is the new request, nil on removal.
func NewBroker(onChange func(threadID string, added *Request)) *Broker {
	return &Broker{pending: map[string]*pending{}, onChange: onChange}
}

// SetOnChange replaces the change callback (wiring at start-up).
func (b *Broker) SetOnChange(f func(threadID string, added *Request)) {
	b.mu.Lock()
	b.onChange = f
	b.mu.Unlock()
}

// Ask registers req and waits for the answer or for ctx to end, in which
// case it returns Deny and ctx's error.
func (b *Broker) Ask(ctx context.Context, req Request) (Decision, error) {
	d, _, err := b.AskWhy(ctx, req)
	return d, err
}

// AskWhy is Ask that also returns why a Policy said no ("" when a person
// answered, or the policy gave no reason).
func (b *Broker) AskWhy(ctx context.Context, req Request) (Decision, string, error) {
	b.mu.Lock()
	b.seq++
	req.ID = fmt.Sprintf("a%d", b.seq)
	req.Created = time.Now()
	if policy := b.policy; policy != nil {
		b.mu.Unlock()
		if d, why, ok := policy(ctx, req); ok {
			return d, why, nil
		}
		b.mu.Lock()
	}
	p := &pending{req: req, answer: make(chan Decision, 1)}
	b.pending[req.ID] = p
	notify := b.onChange
	b.mu.Unlock()
	if notify != nil {
		notify(req.ThreadID, &req)
	}
	defer b.remove(req.ID)
	select {
	case d := <-p.answer:
		return d, "", nil
	case <-ctx.Done():
		return Deny, "", ctx.Err()
	}
}

func (b *Broker) remove(id string) {
	b.mu.Lock()
	p, ok := b.pending[id]
	delete(b.pending, id)
	notify := b.onChange
	b.mu.Unlock()
	if ok && notify != nil {
		notify(p.req.ThreadID, nil)
	}
}

// Answer answers the request id; it reports false when there is no such
// pending request (already answered or withdrawn), or when d is
// AllowAlways and the request does not offer it (NoAlways): such an
// answer is refused and the request keeps waiting.
func (b *Broker) Answer(id string, d Decision) bool {
	b.mu.Lock()
	p, ok := b.pending[id]
	if ok && d == AllowAlways && p.req.NoAlways {
		b.mu.Unlock()
		return false
	}
	if ok {
		delete(b.pending, id)
	}
	notify := b.onChange
	b.mu.Unlock()
	if !ok {
		return false
	}
	p.answer <- d // buffered: the first and only answer
	if notify != nil {
		notify(p.req.ThreadID, nil)
	}
	return true
}

// Pending returns the thread's pending requests, oldest first ("" for all
// threads).
func (b *Broker) Pending(threadID string) []Request {
	b.mu.Lock()
	out := make([]Request, 0, len(b.pending))
	for _, p := range b.pending {
		if threadID == "" || p.req.ThreadID == threadID {
			out = append(out, p.req)
		}
	}
	b.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		return out[i].Created.Before(out[j].Created) || (out[i].Created.Equal(out[j].Created) && out[i].ID < out[j].ID)
	})
	return out
}

// Oldest returns the oldest pending request of any thread.
func (b *Broker) Oldest() (Request, bool) {
	all := b.Pending("")
	if len(all) == 0 {
		return Request{}, false
	}
	return all[0], true
}
