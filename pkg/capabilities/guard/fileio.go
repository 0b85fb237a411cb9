package guard

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/gitctl"
	"github.com/magenta-nvim/magenta/pkg/secrets"
)

// Approval kinds of file access; an approved path is remembered for the
// thread that asked.
const (
	KindFileRead  = "file-read"
	KindFileWrite = "file-write"
)

// FileRule is a user rule for paths at or below Path: Read and Write allow
// without asking; Secret makes even reads ask.
type FileRule struct {
	Path                string
	Read, Write, Secret bool
}

// FileOptions configures a guarded FileIO.
type FileOptions struct {
	Workspace string
	// Readable are roots readable without asking (the command-log root),
	// except for secrets below them. A root that is itself a symlink, or
	// resolves to "/", grants nothing: pass only a root that passed its
	// own checks (localshell.Shell.LogRootUsable).
	Readable   []string
	Rules      []FileRule
	Broker     *approval.Broker
	Remembered *Remembered
	// Resolve, when set, resolves an absolute path on the machine the
	// inner FileIO's files are on (a remote one: an SSH host), as the
	// kernel there would — symlinks followed, a missing tail appended —
	// and is used instead of the local disk for every judgement: the
	// checked path, the workspace, the readable roots and the rules'
	// paths (resolved at the first check and kept), and the git hooks
	// path, read from <workspace>/.git/config through the inner FileIO.
	// The inner FileIO is then handed the path as resolved, since it
	// cannot honour capabilities.WithChecked as a local one does. A
	// failure to resolve fails the access. nil: the local disk.
	Resolve func(ctx context.Context, path string) (string, error)
}

// FileIO is a capabilities.FileIO that asks before reading outside the
// workspace, reading secrets, and writing outside the workspace, to
// secrets or into .git/. Every method is written out: a method added to
// the interface later must be guarded here before it compiles.
type FileIO struct {
	inner capabilities.FileIO
	o     FileOptions
	// refuse: a read that would ask is refused instead (see Refusing).
	refuse bool
	// remote holds the roots resolved with o.Resolve (nil without it);
	// shared with the Refusing copy.
	remote *remoteRoots
}

// roots are the workspace, the readable roots and the rules, resolved
// where the files are.
type roots struct {
	workspace string
	readable  []string
	// rules are resolved (remote); nil means resolve o.Rules' paths
	// locally at each check (a local rule path may be made later).
	rules []FileRule
}

// remoteRoots resolves the roots of a remote FileIO once, at the first
// check that succeeds in doing so.
type remoteRoots struct {
	mu    sync.Mutex
	ready bool
	r     roots
}

var _ capabilities.FileIO = (*FileIO)(nil)

// NewFileIO guards inner. With o.Resolve set it touches no local file:
// the roots are resolved remotely at the first check.
func NewFileIO(inner capabilities.FileIO, o FileOptions) *FileIO {
	if o.Resolve != nil {
		return &FileIO{inner: inner, o: o, remote: &remoteRoots{}}
	}
	o.Workspace = resolvePath(o.Workspace)
	readable := make([]string, 0, len(o.Readable))
	for _, r := range o.Readable {
		if r == "" {
			continue
		}
		if fi, err := os.Lstat(filepath.Clean(r)); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			continue // planted: a link could lead anywhere
		}
		if r = resolvePath(r); r != "/" {
			readable = append(readable, r)
		}
	}
	o.Readable = readable
	return &FileIO{inner: inner, o: o}
}

// Refusing returns a FileIO with the same rules, remembered answers and
// inner FileIO that refuses, with the reason, every access that would
// ask: for reads no tool call asked for (context files at send), where no
// question can be drawn.
func (f *FileIO) Refusing() *FileIO {
	return &FileIO{inner: f.inner, o: f.o, refuse: true, remote: f.remote}
}

// CheckRead applies the read check to path alone, touching no file
// (neither the disk nor a buffer): nil when a read would go ahead, the
// refusal or the user's answer otherwise. For what Neovim shows the
// model without a read of magenta's own — the files @diag and @qf lines
// name — checked with capabilities.WithoutQuestions.
func (f *FileIO) CheckRead(ctx context.Context, path string) error {
	_, err := f.check(ctx, path, false)
	return err
}

// Open implements capabilities.FileIO. The inner FileIO is asked to open
// the path as judged and nothing else (capabilities.WithChecked): a
// symlink swapped in after the check fails the read.
func (f *FileIO) Open(ctx context.Context, path string) (io.ReadCloser, error) {
	resolved, err := f.check(ctx, path, false)
	if err != nil {
		return nil, err
	}
	return f.inner.Open(capabilities.WithChecked(ctx, capabilities.Checked{Path: resolved}), f.target(path, resolved))
}

// ReadFile implements capabilities.FileIO, reading what was judged as
// Open does.
func (f *FileIO) ReadFile(ctx context.Context, path string) ([]byte, error) {
	resolved, err := f.check(ctx, path, false)
	if err != nil {
		return nil, err
	}
	return f.inner.ReadFile(capabilities.WithChecked(ctx, capabilities.Checked{Path: resolved}), f.target(path, resolved))
}

// WriteFile implements capabilities.FileIO; the write is confined to the
// root that allowed it (see beneath).
func (f *FileIO) WriteFile(ctx context.Context, path string, data []byte) error {
	resolved, err := f.check(ctx, path, true)
	if err != nil {
		return err
	}
	return f.inner.WriteFile(f.beneath(ctx, resolved), f.target(path, resolved), data)
}

// Update implements capabilities.FileIO: it reads and writes path, so it
// is checked as a write, and confined like one.
func (f *FileIO) Update(ctx context.Context, path string, maxBytes int64, change func(old []byte) ([]byte, error)) error {
	resolved, err := f.check(ctx, path, true)
	if err != nil {
		return err
	}
	return f.inner.Update(f.beneath(ctx, resolved), f.target(path, resolved), maxBytes, change)
}

// Stat implements capabilities.FileIO.
func (f *FileIO) Stat(ctx context.Context, path string) (capabilities.FileInfo, error) {
	resolved, err := f.check(ctx, path, false)
	if err != nil {
		return capabilities.FileInfo{}, err
	}
	return f.inner.Stat(ctx, f.target(path, resolved))
}

// Exists implements capabilities.FileIO.
func (f *FileIO) Exists(ctx context.Context, path string) (bool, error) {
	resolved, err := f.check(ctx, path, false)
	if err != nil {
		return false, err
	}
	return f.inner.Exists(ctx, f.target(path, resolved))
}

// MkdirAll implements capabilities.FileIO.
func (f *FileIO) MkdirAll(ctx context.Context, path string) error {
	resolved, err := f.check(ctx, path, true)
	if err != nil {
		return err
	}
	return f.inner.MkdirAll(f.beneath(ctx, resolved), f.target(path, resolved))
}

// target is the path the inner FileIO is asked for: the caller's (a
// local FileIO is held to the judged path by WithChecked / WithBeneath),
// or, over Resolve, the path as judged.
func (f *FileIO) target(path, resolved string) string {
	if f.o.Resolve != nil {
		return resolved
	}
	return path
}

// beneath returns ctx asking the disk to write resolved (the path as the
// check judged it) inside the directory that made it allowed: the
// workspace, or the root of the user's rule. If a directory on the path is
// swapped for a symlink leading out after the check, the write fails
// instead of landing outside. A path outside both (one the user approved)
// is written as it resolves. The roots were resolved by the check that
// returned resolved.
func (f *FileIO) beneath(ctx context.Context, resolved string) context.Context {
	rs, err := f.roots(ctx)
	if err != nil {
		return ctx
	}
	root := ""
	if within(rs.workspace, resolved) {
		root = rs.workspace
	} else if rule, ok := f.rule(rs, resolved); ok {
		root = rule.Path
	}
	if root == "" || root == resolved {
		return ctx
	}
	rel, err := filepath.Rel(root, resolved)
	if err != nil {
		return ctx
	}
	return capabilities.WithBeneath(ctx, capabilities.Beneath{Root: root, Rel: rel})
}

// resolve resolves path where the files are: the local disk, or Resolve.
func (f *FileIO) resolve(ctx context.Context, path string) (string, error) {
	if f.o.Resolve == nil {
		return resolvePath(path), nil
	}
	r, err := f.o.Resolve(ctx, filepath.Clean(path))
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", path, err)
	}
	return filepath.Clean(r), nil
}

// roots returns the roots as resolved where the files are. A local
// FileIO's were resolved by NewFileIO; a remote one's are resolved at
// the first call that can (a failure is returned and tried again next
// time).
func (f *FileIO) roots(ctx context.Context) (roots, error) {
	if f.remote == nil {
		return roots{workspace: f.o.Workspace, readable: f.o.Readable}, nil
	}
	f.remote.mu.Lock()
	defer f.remote.mu.Unlock()
	if f.remote.ready {
		return f.remote.r, nil
	}
	ws, err := f.resolve(ctx, f.o.Workspace)
	if err != nil {
		return roots{}, err
	}
	r := roots{workspace: ws, rules: []FileRule{}}
	for _, root := range f.o.Readable {
		if root == "" {
			continue
		}
		resolved, err := f.resolve(ctx, root)
		if err != nil {
			return roots{}, err
		}
		// Remotely no Lstat tells whether the root itself is a link: a
		// root that is not its own resolution (a link anywhere on it)
		// grants nothing.
		if resolved == filepath.Clean(root) && resolved != "/" {
			r.readable = append(r.readable, resolved)
		}
	}
	for _, rule := range f.o.Rules {
		resolved, err := f.resolve(ctx, rule.Path)
		if err != nil {
			return roots{}, err
		}
		rule.Path = resolved
		r.rules = append(r.rules, rule)
	}
	f.remote.r, f.remote.ready = r, true
	return r, nil
}

// check asks unless the rules allow the access; YES is remembered for the
// calling thread and path. It returns the path resolved as judged.
func (f *FileIO) check(ctx context.Context, path string, write bool) (string, error) {
	rs, err := f.roots(ctx)
	if err != nil {
		return "", err
	}
	resolved, err := f.resolve(ctx, path)
	if err != nil {
		return "", err
	}
	reason := f.judge(ctx, rs, resolved, write)
	if reason == "" {
		return resolved, nil
	}
	call := capabilities.CallFrom(ctx)
	kind := KindFileRead
	if write {
		kind = KindFileWrite
	}
	key := call.ThreadID + "\x00" + resolved
	if f.o.Remembered.Has(kind, key) {
		return resolved, nil
	}
	if f.refuse || capabilities.NoQuestions(ctx) {
		return "", &capabilities.DeniedError{What: resolved, Reason: reason + "; only a tool call can ask for that"}
	}
	if _, err := askUser(ctx, f.o.Broker, approval.Request{
		ThreadID: call.ThreadID, ToolUseID: call.RequestID, Kind: kind, Subject: resolved, Reason: reason, NoAlways: true,
	}, "the user declined"); err != nil {
		return "", err
	}
	f.o.Remembered.Remember(kind, key)
	return resolved, nil
}

// reason is judge for a local FileIO: why access to the resolved path
// needs approval, "" when it does not.
func (f *FileIO) reason(resolved string, write bool) string {
	rs, _ := f.roots(context.Background()) // local: never fails
	return f.judge(context.Background(), rs, resolved, write)
}

// judge says why access to the resolved path needs approval, "" when it
// does not; rs are the roots resolved where the files are.
func (f *FileIO) judge(ctx context.Context, rs roots, resolved string, write bool) string {
	verb := "reads"
	if write {
		verb = "writes"
	}
	// A secret is judged by the names below the root that would allow
	// it, before any allowance: a rule or the log root allows what it
	// covers, except secrets inside it.
	rule, ruled := f.rule(rs, resolved)
	if ruled {
		switch {
		case rule.Secret:
			return fmt.Sprintf("%s %s, which a rule marks secret", verb, resolved)
		case (write && rule.Write || !write && (rule.Read || rule.Write)) && secretBelow(rule.Path, resolved) == "":
			return ""
		}
	}
	if !write && slices.ContainsFunc(rs.readable, func(root string) bool {
		return within(root, resolved) && secretBelow(root, resolved) == ""
	}) {
		return ""
	}
	if !within(rs.workspace, resolved) {
		if name := secrets.InPath(resolved); name != "" {
			return fmt.Sprintf("%s %s, outside the workspace and a secret (%s)", verb, resolved, name)
		}
		return fmt.Sprintf("%s %s, outside the workspace", verb, resolved)
	}
	rel, _ := filepath.Rel(rs.workspace, resolved)
	if name := secretBelow(rs.workspace, resolved); name != "" {
		return fmt.Sprintf("%s %s, a secret (%s)", verb, rel, name)
	}
	if write && gitctl.Protected(rs.workspace, f.hooksPath(ctx, rs.workspace), resolved) {
		return fmt.Sprintf("writes %s, a git control path (git runs what it says at the next git command)", rel)
	}
	return ""
}

// hooksPath is the core.hooksPath inside the workspace that
// gitctl.HooksPath finds, read from the local disk or, over Resolve,
// through the inner FileIO. A config that cannot be read names none (as
// locally: the .git/ paths themselves stay protected).
func (f *FileIO) hooksPath(ctx context.Context, workspace string) string {
	if f.o.Resolve == nil {
		return gitctl.HooksPath(workspace)
	}
	data, err := f.inner.ReadFile(ctx, filepath.Join(workspace, ".git", "config"))
	if err != nil {
		return ""
	}
	return gitctl.HooksPathIn(workspace, data)
}

// rule returns the user rule with the longest path containing resolved.
func (f *FileIO) rule(rs roots, resolved string) (FileRule, bool) {
	best, found := FileRule{}, false
	rules := rs.rules
	if rules == nil {
		rules = f.o.Rules
	}
	for _, r := range rules {
		root := r.Path
		if rs.rules == nil {
			root = resolvePath(r.Path)
		}
		if within(root, resolved) && (!found || len(root) > len(best.Path)) {
			best, found = FileRule{Path: root, Read: r.Read, Write: r.Write, Secret: r.Secret}, true
		}
	}
	return best, found
}

// secretBelow names the secret among path's components below root (both
// resolved, path within root), "" when there is none.
func secretBelow(root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." {
		return ""
	}
	return secrets.In(strings.Split(filepath.ToSlash(rel), "/"))
}
