package tools

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/edit"
)

// fileChange is one file an applied WorkspaceEdit changed.
type fileChange struct {
	path, before, after string
}

// applyStop is where applying a WorkspaceEdit stopped: the file that
// was not changed and why. Files after it were not changed either.
type applyStop struct {
	path string
	err  error
	// left are the files after it, not changed either.
	left []string
}

// errChangedMeanwhile: the file's text changed between the check of the
// whole edit and its write (the user typed in its buffer).
var errChangedMeanwhile = errors.New("it changed while the edit was being applied (the user typed in it?); its positions no longer fit")

// applyWorkspaceEdit applies a server's edit through files, so every
// write is checked (a file outside the workspace asks), goes through an
// open buffer (unsaved text kept, one undo step per file) and is
// serialised with other edits of the file, as edit_file's are.
//
// Every file the model may read without asking is read and its edits
// checked first: an edit that does not fit (stale positions, overlaps,
// check refusing) changes nothing at all. Files that ask are written
// first, so a "no" stops the edit before any other file changed. A file
// whose text changed after its check is not written, and neither are the
// ones after it; what was written stays (an undo step per file).
func applyWorkspaceEdit(ctx context.Context, files capabilities.FileIO, we capabilities.WorkspaceEdit, check func(replaced, newText string) error) ([]fileChange, *applyStop) {
	type planned struct {
		fe       capabilities.FileEdit
		snapshot *string
	}
	quiet := capabilities.WithoutQuestions(ctx)
	var plan []planned
	for _, fe := range we.Files {
		old, err := files.ReadFile(quiet, fe.Path)
		var denied *capabilities.DeniedError
		switch {
		case errors.As(err, &denied):
			plan = append(plan, planned{fe: fe}) // checked when written
			continue
		case err != nil:
			return nil, &applyStop{path: fe.Path, err: err}
		}
		after, err := applyTextEdits(string(old), fe.Encoding, fe.Edits, check)
		if err != nil {
			return nil, &applyStop{path: fe.Path, err: editError{err}}
		}
		if after != string(old) {
			s := string(old)
			plan = append(plan, planned{fe: fe, snapshot: &s})
		}
	}
	sort.SliceStable(plan, func(i, j int) bool { return plan[i].snapshot == nil && plan[j].snapshot != nil })
	var done []fileChange
	for i, p := range plan {
		var before, after string
		err := files.Update(ctx, p.fe.Path, FileChangeMaxBytes, func(old []byte) ([]byte, error) {
			if p.snapshot != nil && !sameText(string(old), *p.snapshot) {
				return nil, editError{errChangedMeanwhile}
			}
			var err error
			before = string(old)
			if after, err = applyTextEdits(before, p.fe.Encoding, p.fe.Edits, check); err != nil {
				return nil, editError{err}
			}
			return []byte(after), nil
		})
		if err != nil {
			stop := &applyStop{path: p.fe.Path, err: err}
			for _, rest := range plan[i+1:] {
				stop.left = append(stop.left, rest.fe.Path)
			}
			return done, stop
		}
		if after != before {
			done = append(done, fileChange{p.fe.Path, before, after})
		}
	}
	return done, nil
}

// sameText compares a file's text read twice. A final newline may
// differ: the check read an unmodified buffer's file from the disk, the
// write reads the buffer, which has one under 'fixeol'; no position
// depends on it.
func sameText(a, b string) bool {
	return a == b || strings.TrimSuffix(a, "\n") == strings.TrimSuffix(b, "\n")
}

// changesResult describes an applied edit: intro, then one line per
// file changed with its counts; the chat gets every file's diff and the
// first change to jump to. A stop makes it an error result that says
// what was and was not changed.
func changesResult(call Call, intro string, done []fileChange, stop *applyStop) Result {
	var b strings.Builder
	var diffs []string
	var res Result
	if intro != "" {
		b.WriteString(intro + "\n")
	}
	for _, c := range done {
		rel := relToCwd(call.Env.Cwd, c.path)
		diff := edit.Diff(rel, c.before, c.after, EditDiffContext)
		added, removed := diffStats(diff)
		fmt.Fprintf(&b, "%s +%d -%d\n", rel, added, removed)
		diffs = append(diffs, diff)
		if res.Location == nil {
			res.Location = &Location{Path: c.path, Line: firstChangedLine(c.before, c.after)}
		}
	}
	if stop != nil {
		res.IsError = true
		fmt.Fprintf(&b, "%s", stopText(call, stop, len(done)))
	}
	res.Text = strings.TrimRight(b.String(), "\n")
	res.Diff = strings.Join(diffs, "")
	return res
}

func stopText(call Call, stop *applyStop, changed int) string {
	rel := relToCwd(call.Env.Cwd, stop.path)
	why := fileOpError(opEdit, rel, stop.err).Text
	var misfit editError
	if errors.As(stop.err, &misfit) {
		why = fmt.Sprintf("the edit of %s does not fit: %v", rel, misfit.err)
	}
	if changed == 0 {
		return "Nothing was changed: " + why + "\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Stopped: %s\n", why)
	if len(stop.left) > 0 {
		left := make([]string, len(stop.left))
		for i, p := range stop.left {
			left[i] = relToCwd(call.Env.Cwd, p)
		}
		fmt.Fprintf(&b, "Not changed either: %s.\n", strings.Join(left, ", "))
	}
	b.WriteString("The files listed above were changed (each is one undo step in the editor); the change is incomplete until the others are changed too.\n")
	return b.String()
}
