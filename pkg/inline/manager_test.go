package inline

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
)

// recorder is a Sink that keeps what it was told.
type recorder struct {
	mu       sync.Mutex
	partials []string
	outcomes []string
	got      chan struct{}
}

func newRecorder() *recorder { return &recorder{got: make(chan struct{}, 16)} }

func (r *recorder) Partial(buf, id int, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.partials = append(r.partials, text)
}

func (r *recorder) Proposal(buf, id int, text string) { r.outcome(buf, id, "proposal:"+text) }
func (r *recorder) Failed(buf, id int, msg string)    { r.outcome(buf, id, "failed:"+msg) }

func (r *recorder) outcome(buf, id int, s string) {
	r.mu.Lock()
	r.outcomes = append(r.outcomes, s)
	r.mu.Unlock()
	r.got <- struct{}{}
}

func (r *recorder) wait(t *testing.T) []string {
	t.Helper()
	select {
	case <-r.got:
	case <-time.After(30 * time.Second):
		t.Fatal("no outcome")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.outcomes...)
}

func opener(p provider.Provider) Opener {
	return func() (provider.Provider, string, int, error) { return p, "m", 100, nil }
}

func TestManagerProposalAndErrors(t *testing.T) {
	fake := providertest.New()
	rec := newRecorder()
	m := NewManager(rec)
	defer m.Close()

	m.Start(opener(fake), Request{Buf: 1, ID: 1, Path: "a.go", Selection: "x", Prompt: "p"})
	call := fake.Next(t)
	assert.Equal(t, "m", call.Request.Model)
	assert.Equal(t, 100, call.Request.MaxTokens)
	call.ToolUse("t", ToolName, toolInput{Text: "y\n"})
	require.Eventually(t, func() bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return len(rec.partials) == 1 && rec.partials[0] == "y\n"
	}, 30*time.Second, time.Millisecond, "the streamed text is previewed before the stream ends")
	call.Stop(provider.StopToolUse)
	assert.Equal(t, []string{"proposal:y\n"}, rec.wait(t))

	m.Start(opener(fake), Request{Buf: 1, ID: 2, Prompt: "p"})
	fake.Next(t).Reply("I would rather not.")
	assert.Equal(t, "failed:the model proposed no replacement; it said: I would rather not.", rec.wait(t)[1])

	m.Start(func() (provider.Provider, string, int, error) { return nil, "", 0, errors.New("no key") }, Request{Buf: 1, ID: 3, Prompt: "p"})
	assert.Equal(t, "failed:no key", rec.wait(t)[2])
	assert.Equal(t, 0, m.Running())
}

// Abort cancels the request and reports nothing; a second edit in the
// same buffer replaces the first; edits in other buffers go on.
func TestManagerAbortAndReplace(t *testing.T) {
	fake := providertest.New()
	rec := newRecorder()
	m := NewManager(rec)
	defer m.Close()

	m.Start(opener(fake), Request{Buf: 1, ID: 1, Prompt: "p"})
	first := fake.Next(t)
	m.Start(opener(fake), Request{Buf: 2, ID: 2, Prompt: "p"})
	other := fake.Next(t)
	require.True(t, m.Abort(1))
	assert.False(t, m.Abort(1), "nothing left to abort")
	<-first.Ended()

	m.Start(opener(fake), Request{Buf: 2, ID: 3, Prompt: "p"})
	second := fake.Next(t)
	<-other.Ended()
	second.ToolUse("t", ToolName, toolInput{Text: "z"})
	second.Stop(provider.StopToolUse)
	assert.Equal(t, []string{"proposal:z"}, rec.wait(t), "only the edit still wanted reports")
}

func TestReplacementErrors(t *testing.T) {
	_, err := replacement(&provider.Response{StopReason: provider.StopMaxTokens})
	assert.EqualError(t, err, "the model ran out of tokens before proposing a replacement")
	_, err = replacement(&provider.Response{Message: provider.Message{Content: []provider.Block{
		{Kind: provider.BlockToolUse, ToolName: ToolName, Input: []byte(`{"text": 3}`)},
	}}})
	assert.ErrorContains(t, err, "the model's replace_selection input is not valid")
	assert.Equal(t, "ab…", cut("abc", 2))
	assert.Equal(t, "é…", cut("éé", 3), "never inside a rune")
}

func TestUserMessageFencesAndTrims(t *testing.T) {
	msg := userMessage(Request{Path: "a.md", StartLine: 2, EndLine: 2, Selection: "```go\nx\n```", Prompt: "fix"})
	assert.Equal(t, "File: a.md\nSelected lines: 2-2\n\nThe selection:\n````\n```go\nx\n```\n````\n\nInstruction: fix", msg)
	assert.Equal(t, "c\nd", lastLines("a\nb\nc\nd", 2))
	assert.Equal(t, "a\nb", firstLines("a\nb\nc\nd", 2))
}
