package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

//go:embed code_actions.md
var codeActionsDescription string

//go:embed apply_code_action.md
var applyCodeActionDescription string

// MaxCodeActions bounds a code_actions listing (code_actions.md quotes it).
const MaxCodeActions = 30

// maxListings bounds how many threads' last listings are kept.
const maxListings = 64

// CodeActionsParams is the input of code_actions.
type CodeActionsParams struct {
	FilePath  string `json:"filePath" jsonschema:"the file, relative to the workspace root"`
	StartLine int    `json:"startLine" jsonschema:"the first line of the range, 1-based"`
	EndLine   int    `json:"endLine,omitempty" jsonschema:"the last line of the range, 1-based, inclusive (default: startLine)"`
}

// ApplyCodeActionParams is the input of apply_code_action.
type ApplyCodeActionParams struct {
	Index int `json:"index" jsonschema:"the action's number in the last code_actions listing of this thread"`
}

// codeActionListing is a thread's last listing: the file, the text the
// actions were computed for, and the actions by their index.
type codeActionListing struct {
	path, text string
	first      int // 1-based, for the messages
	actions    []capabilities.CodeAction
}

// codeActionState holds the last listing of each thread (the newest
// maxListings threads'), shared by the two tools.
type codeActionState struct {
	mu       sync.Mutex
	listings map[string]*codeActionListing
	order    []string // thread ids, oldest first
}

func (s *codeActionState) put(thread string, l *codeActionListing) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listings == nil {
		s.listings = map[string]*codeActionListing{}
	}
	if _, ok := s.listings[thread]; ok {
		for i, id := range s.order {
			if id == thread {
				s.order = append(s.order[:i], s.order[i+1:]...)
				break
			}
		}
	}
	s.listings[thread] = l
	s.order = append(s.order, thread)
	for len(s.order) > maxListings {
		delete(s.listings, s.order[0])
		s.order = s.order[1:]
	}
}

func (s *codeActionState) get(thread string) *codeActionListing {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listings[thread]
}

// drop forgets thread's listing if it is still l.
func (s *codeActionState) drop(thread string, l *codeActionListing) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listings[thread] == l {
		delete(s.listings, thread)
	}
}

// CodeActionTools returns the code_actions and apply_code_action tools,
// which share each thread's last listing.
func CodeActionTools() (Tool, Tool) {
	s := &codeActionState{}
	data := map[string]string{"MaxActions": strconv.Itoa(MaxCodeActions)}
	for k, v := range lspTimes {
		data[k] = v
	}
	list := MustTyped("code_actions", codeActionsDescription, data, s.list)
	apply := MustTyped("apply_code_action", applyCodeActionDescription, data, s.apply)
	return newLSPTool(list, "code_actions", capabilities.LSPCodeAction, false),
		newLSPTool(apply, "apply_code_action", capabilities.LSPCodeAction, false)
}

func (s *codeActionState) list(ctx context.Context, call Call, p CodeActionsParams) Result {
	if call.Env == nil || call.Env.LSP == nil || call.Env.Files == nil {
		return Errorf("this environment has no language servers")
	}
	if strings.TrimSpace(p.FilePath) == "" {
		return Errorf("filePath must not be empty")
	}
	if p.EndLine == 0 {
		p.EndLine = p.StartLine
	}
	if p.StartLine < 1 || p.EndLine < p.StartLine {
		return Errorf(fmt.Sprintf("startLine (%d) and endLine (%d) must be 1-based with startLine ≤ endLine", p.StartLine, p.EndLine))
	}
	path := resolveToolPath(call.Env, p.FilePath)
	rel := relToCwd(call.Env.Cwd, path)
	text, err := call.Env.Files.ReadFile(ctx, path)
	if err != nil {
		return fileError(path, err)
	}
	lines := strings.Count(strings.TrimSuffix(string(text), "\n"), "\n") + 1
	if p.StartLine > lines {
		return Errorf(fmt.Sprintf("%s has %d line%s; startLine %d is past its end", rel, lines, plural(lines), p.StartLine))
	}
	p.EndLine = min(p.EndLine, lines)
	all, err := call.Env.LSP.CodeActions(ctx, path, p.StartLine-1, p.EndLine-1)
	if err != nil {
		return lspError(err)
	}
	var actions []capabilities.CodeAction
	disabled := 0
	for _, a := range all {
		if a.Disabled != "" {
			disabled++
			continue
		}
		actions = append(actions, a)
	}
	span := fmt.Sprintf("line %d", p.StartLine)
	if p.EndLine > p.StartLine {
		span = fmt.Sprintf("lines %d-%d", p.StartLine, p.EndLine)
	}
	if len(actions) == 0 {
		s.drop(call.ThreadID, s.get(call.ThreadID))
		msg := fmt.Sprintf("No code actions for %s of %s.", span, rel)
		if disabled > 0 {
			msg += fmt.Sprintf(" (%d the servers offer cannot be applied now.)", disabled)
		}
		return Result{Text: msg, Summary: "no actions"}
	}
	more := 0
	if len(actions) > MaxCodeActions {
		more, actions = len(actions)-MaxCodeActions, actions[:MaxCodeActions]
	}
	s.put(call.ThreadID, &codeActionListing{path: path, text: string(text), first: p.StartLine, actions: actions})
	var b strings.Builder
	fmt.Fprintf(&b, "Code actions for %s of %s (apply one with apply_code_action and its index):\n", span, rel)
	for i, a := range actions {
		fmt.Fprintf(&b, "%d. %s", i+1, a.Title)
		if a.Kind != "" {
			fmt.Fprintf(&b, " [%s]", a.Kind)
		}
		fmt.Fprintf(&b, " (%s)", a.Server)
		if a.Command != "" {
			b.WriteString(" (runs a server command)")
		}
		b.WriteString("\n")
	}
	if more > 0 {
		fmt.Fprintf(&b, "… and %d more not listed: narrow the range.\n", more)
	}
	return Result{Text: strings.TrimRight(b.String(), "\n"), Summary: fmt.Sprintf("%d action%s", len(actions), plural(len(actions)))}
}

func (s *codeActionState) apply(ctx context.Context, call Call, p ApplyCodeActionParams) Result {
	if call.Env == nil || call.Env.LSP == nil || call.Env.Files == nil {
		return Errorf("this environment has no language servers")
	}
	l := s.get(call.ThreadID)
	if l == nil {
		return Errorf("no code actions are listed in this thread: call code_actions first, then apply one by its index")
	}
	if p.Index < 1 || p.Index > len(l.actions) {
		return Errorf(fmt.Sprintf("index %d is not in the last code_actions listing (1-%d); call code_actions again if you meant another range", p.Index, len(l.actions)))
	}
	rel := relToCwd(call.Env.Cwd, l.path)
	text, err := call.Env.Files.ReadFile(ctx, l.path)
	if err != nil {
		return fileError(l.path, err)
	}
	if !sameText(string(text), l.text) {
		s.drop(call.ThreadID, l)
		return Errorf(fmt.Sprintf("%s changed since its code actions were listed: the actions no longer fit it. Nothing was changed; call code_actions again for fresh indexes.", rel))
	}
	a := l.actions[p.Index-1]
	if a.Edit == nil && a.Resolvable {
		if a, err = call.Env.LSP.ResolveCodeAction(ctx, a); err != nil {
			return editRequestError("code action", err)
		}
	}
	if a.Edit == nil && a.Command == "" {
		return Errorf(fmt.Sprintf("%s's action %q carries no edit and no command: there is nothing to apply. Nothing was changed.", a.Server, a.Title))
	}
	if a.Edit != nil {
		if res := refuseFileOperations(*a.Edit); res != nil {
			return *res
		}
	}
	if a.Command != "" {
		if !a.CommandRunnable {
			return Errorf(fmt.Sprintf("%s's action %q runs the command %s, which the server does not execute (it is meant for an editor's own handling). Nothing was changed.", a.Server, a.Title, a.Command))
		}
		if call.Env.Ask == nil {
			return Errorf(fmt.Sprintf("%s's action %q runs the server command %s, and this environment cannot ask the user to approve it. Nothing was changed.", a.Server, a.Title, a.Command))
		}
		reason := fmt.Sprintf("the code action %q runs the language server's command %s: %s may then change files itself, without magenta's checks", a.Title, a.Command, a.Server)
		if err := call.Env.Ask(ctx, a.Server+": "+a.Command, reason); err != nil {
			var denied *capabilities.DeniedError
			if errors.As(err, &denied) {
				return Errorf(fmt.Sprintf("The user did not approve running %s's command %s (%s). Nothing ran and nothing was changed.", a.Server, a.Command, denied.Reason))
			}
			return Errorf(fmt.Sprintf("asking to run %s's command %s failed: %v. Nothing ran and nothing was changed.", a.Server, a.Command, err))
		}
	}
	// The text is checked again: the user may have typed while the
	// question waited.
	var done []fileChange
	var intro string
	if a.Edit != nil {
		var stop *applyStop
		done, stop = applyWorkspaceEdit(ctx, call.Env.Files, *a.Edit, nil)
		tellServers(ctx, call, done)
		s.drop(call.ThreadID, l)
		if stop != nil {
			return changesResult(call, "", done, stop)
		}
		intro = fmt.Sprintf("Applied %q (%s):", a.Title, a.Server)
		if len(done) == 0 {
			intro = fmt.Sprintf("Applied %q (%s): its edit changed nothing.", a.Title, a.Server)
		}
	}
	out := changesResult(call, intro, done, nil)
	if a.Command != "" {
		s.drop(call.ThreadID, l)
		run, err := call.Env.LSP.RunCodeCommand(ctx, a)
		if err != nil {
			res := editRequestError("command "+a.Command, err)
			if len(done) > 0 {
				res.Text = out.Text + "\nThen running its command failed: " + res.Text
				res.Diff, res.Location = out.Diff, out.Location
			}
			return res
		}
		out.Text = strings.TrimSpace(out.Text + "\n" + commandRunText(call, a, run))
	}
	out.Summary = a.Title
	return out
}

func commandRunText(call Call, a capabilities.CodeAction, run capabilities.CommandRun) string {
	if len(run.Modified) == 0 {
		return fmt.Sprintf("%s ran its command %s for %q; it changed no file open in the editor (it may have changed files on disk: read them again before editing).", a.Server, a.Command, a.Title)
	}
	names := make([]string, len(run.Modified))
	for i, p := range run.Modified {
		names[i] = relToCwd(call.Env.Cwd, p)
	}
	return fmt.Sprintf("%s ran its command %s for %q and applied its own edits to the editor's buffers of: %s. They may be unsaved; read them again before editing them.", a.Server, a.Command, a.Title, strings.Join(names, ", "))
}
