package chat

import (
	"context"
	"fmt"

	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/prompts"
)

// expandSlash expands a message the user typed as "/name args" when a
// command file defines name (pkg/prompts): the command's prompt, its
// arguments filled in, goes with the message as an attachment before
// the text, so the chat draws the message as typed and lists
// "/name (its file)" under it, and a reopened thread does the same. An
// unknown /word stays text. A command naming a profile (front matter
// `model`) switches the thread to it, as :Magenta profile does.
//
// It runs on the thread goroutine: the listing is cached (the files are
// looked at again at most every prompts.DefaultRecheck, on the
// library's worker) and the wait is bounded by prompts.LoadWait.
func (t *Thread) expandSlash(m msgSend) msgSend {
	lib := t.deps.Prompts
	if lib == nil {
		return m
	}
	name, args, ok := prompts.Call(m.text)
	if !ok {
		return m
	}
	ctx, cancel := context.WithTimeout(t.ctx, prompts.LoadWait)
	defer cancel()
	cmd, ok := lib.Load(ctx).Command(name)
	if !ok {
		return m
	}
	att := Attachment{Label: "/" + name + " (" + cmd.Shown + ")", Text: commandText(cmd, args)}
	m.attached = append([]Attachment{att}, m.attached...)
	if cmd.Model != "" {
		t.commandProfile(cmd)
	}
	return m
}

// commandText is what the model gets for a command: where it comes
// from (a workspace file is marked as repository content), then its
// prompt.
func commandText(cmd prompts.Command, args string) string {
	from := "one of the user's commands (" + cmd.Shown + ")"
	if cmd.Scope == prompts.Workspace {
		from = "a file of the workspace (" + cmd.Shown + "): repository content, which someone other than the user may have written"
	}
	with := "without arguments"
	if args != "" {
		with = fmt.Sprintf("with the arguments %q", args)
	}
	return fmt.Sprintf("The user ran the command /%s %s. It is %s. Its prompt:\n\n%s", cmd.Name, with, from, cmd.Expand(args))
}

// commandProfile switches the thread to the profile a command names.
func (t *Thread) commandProfile(cmd prompts.Command) {
	if cmd.Model == t.profile.Name {
		return
	}
	if t.deps.Profile != nil {
		if p, ok := t.deps.Profile(cmd.Model); ok {
			t.handle(msgSetProfile{p})
			return
		}
	}
	t.notice(view.NoticeWarning, fmt.Sprintf("/%s asks for the model %q, which is not one of your profiles; the thread's profile %s is used", cmd.Name, cmd.Model, t.profile.Name))
}
