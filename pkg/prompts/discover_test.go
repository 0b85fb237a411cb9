package prompts

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/goldentest"
)

// tree is a home, a config home and a workspace in a temporary directory.
type tree struct {
	root string
	dirs Dirs
}

func newTree(t testing.TB) tree {
	root := t.TempDir()
	d := Dirs{Workspace: filepath.Join(root, "ws"), Home: filepath.Join(root, "home"), ConfigHome: filepath.Join(root, "home", ".config")}
	for _, dir := range []string{d.Workspace, d.Home} {
		require.NoError(t, os.MkdirAll(dir, 0o755))
	}
	return tree{root, d}
}

// write puts text at rel, under the tree's root ("ws/…", "home/…").
func (tr tree) write(t testing.TB, rel, text string) string {
	t.Helper()
	path := filepath.Join(tr.root, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

func skillFile(name, desc string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n# %s\nDo it.\n", name, desc, name)
}

func (tr tree) load(t testing.TB) (*Set, []string) {
	var warned []string
	lib := New(tr.dirs, func(w string) { warned = append(warned, w) })
	set := lib.Load(context.Background())
	return set, warned
}

// short quotes a description, a long one cut with its length.
func short(d string) string {
	if r := []rune(d); len(r) > 60 {
		return fmt.Sprintf("%q… (%d characters)", string(r[:30]), len(r))
	}
	return fmt.Sprintf("%q", d)
}

// listing is a Set as text, for the golden file.
func listing(s *Set) string {
	var b strings.Builder
	for _, sk := range s.Skills {
		fmt.Fprintf(&b, "skill %s [%s %s] %s\n  body %q\n", sk.Name, sk.Scope, sk.Shown, short(sk.Description), sk.Body)
	}
	for _, c := range s.Commands {
		fmt.Fprintf(&b, "command /%s [%s %s] ns=%q hint=%q model=%q %q\n  body %q\n", c.Name, c.Scope, c.Shown, c.Namespace, c.ArgumentHint, c.Model, c.Description, c.Body)
	}
	for _, a := range s.Agents {
		fmt.Fprintf(&b, "agent %s [%s %s] tools=%q model=%q %q\n  prompt %q\n", a.Name, a.Scope, a.Shown, a.Tools, a.Model, a.Description, a.Prompt)
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}

// Every kind from every directory, the precedence between them, and each
// bad input: the golden listing says what was kept, what won and why the
// rest was skipped.
func TestDiscoveryGolden(t *testing.T) {
	tr := newTree(t)
	// Skills.
	tr.write(t, "ws/.claude/skills/pdf/SKILL.md", skillFile("pdf", "Fill PDF forms.")+"See forms.md.\n")
	tr.write(t, "ws/.claude/skills/pdf/forms.md", "the forms\n")
	tr.write(t, "ws/.claude/skills/shared/SKILL.md", skillFile("shared", "The workspace's copy."))
	tr.write(t, "home/.claude/skills/shared/SKILL.md", skillFile("shared", "The user's copy wins."))
	tr.write(t, "home/.config/magenta/skills/nameless/SKILL.md", "---\ndescription: Named after its directory.\n---\nbody\n")
	tr.write(t, "ws/.magenta/skills/broken/SKILL.md", "---\nname: broken\ndescription: [unclosed\n  x: {\n---\n")
	tr.write(t, "ws/.claude/skills/nofm/SKILL.md", "# No front matter\n")
	tr.write(t, "ws/.claude/skills/nodesc/SKILL.md", "---\nname: nodesc\n---\nbody\n")
	tr.write(t, "ws/.claude/skills/BadName/SKILL.md", skillFile("Bad_Name", "x"))
	tr.write(t, "ws/.claude/skills/latin1/SKILL.md", "---\nname: latin1\ndescription: caf\xe9\n---\n")
	tr.write(t, "ws/.claude/skills/huge/SKILL.md", skillFile("huge", "big")+strings.Repeat("x", MaxFileBytes))
	tr.write(t, "ws/.claude/skills/long/SKILL.md", skillFile("long", strings.Repeat("word ", 300)))
	tr.write(t, "ws/.claude/skills/notaskill/README.md", "no SKILL.md here\n")
	tr.write(t, "ws/.claude/skills/twin/SKILL.md", skillFile("pdf", "A second pdf in the same directory."))
	// Commands.
	tr.write(t, "ws/.claude/commands/review-pr.md", "---\ndescription: Review a change\nargument-hint: [pr] [priority]\nmodel: fast\n---\nReview PR $1 at priority $2.\n")
	tr.write(t, "ws/.claude/commands/review.md", "The workspace's review.\n")
	tr.write(t, "ws/.claude/commands/frontend/component.md", "# Make a component\nCreate $ARGUMENTS.\n")
	tr.write(t, "ws/.claude/commands/backend/component.md", "Another component.\n")
	tr.write(t, "home/.claude/commands/review.md", "The user's review.\n")
	tr.write(t, "ws/.magenta/commands/bad name.md", "x\n")
	tr.write(t, "ws/.claude/commands/notes.txt", "not markdown\n")
	// Agents.
	tr.write(t, "ws/.claude/agents/reviewer.md", "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep, bash_command\nmodel: inherit\n---\nYou review code.\n")
	tr.write(t, "home/.config/magenta/agents/writer.md", "---\nname: writer\ndescription: Writes docs\ntools:\n  - get_file\n  - write_file\nmodel: fast\n---\nYou write docs.\n")
	tr.write(t, "ws/.claude/agents/noname.md", "---\ndescription: x\n---\n")
	tr.write(t, "ws/.claude/agents/plain.md", "You are an agent without front matter.\n")

	set, warned := tr.load(t)
	goldentest.Assert(t, "testdata/discovery.golden", listing(set))
	assert.Equal(t, set.Warnings, warned, "each warning is told once")
}

// A second listing reads only the files that changed; a new file shows,
// a removed one goes, and warnings are told once.
func TestDiscoveryRereadsOnlyChangedFiles(t *testing.T) {
	tr := newTree(t)
	for i := range 5 {
		tr.write(t, fmt.Sprintf("ws/.claude/skills/s%d/SKILL.md", i), skillFile(fmt.Sprintf("s%d", i), "one"))
	}
	bad := tr.write(t, "ws/.claude/commands/bad.md", "---\nunclosed\n")
	var warned []string
	lib := New(tr.dirs, func(w string) { warned = append(warned, w) })
	lib.Recheck = 0
	ctx := context.Background()
	set := lib.Load(ctx)
	require.Len(t, set.Skills, 5)
	assert.Equal(t, int64(6), lib.Stats().FilesRead)
	require.Len(t, warned, 1)

	assert.Len(t, lib.Load(ctx).Skills, 5)
	assert.Equal(t, int64(6), lib.Stats().FilesRead, "nothing changed, nothing read")
	assert.Len(t, warned, 1, "the same warning is not told again")

	path := filepath.Join(tr.dirs.Workspace, ".claude/skills/s2/SKILL.md")
	require.NoError(t, os.WriteFile(path, []byte(skillFile("s2", "two, longer")), 0o644))
	later := time.Now().Add(time.Second)
	require.NoError(t, os.Chtimes(path, later, later))
	require.NoError(t, os.RemoveAll(filepath.Join(tr.dirs.Workspace, ".claude/skills/s4")))
	require.NoError(t, os.Remove(bad))
	tr.write(t, "home/.claude/skills/new/SKILL.md", skillFile("new", "fresh"))
	set = lib.Load(ctx)
	assert.Equal(t, int64(8), lib.Stats().FilesRead, "the changed file and the new one")
	sk, ok := set.Skill("s2")
	require.True(t, ok)
	assert.Equal(t, "two, longer", sk.Description)
	_, ok = set.Skill("s4")
	assert.False(t, ok, "removed")
	_, ok = set.Skill("new")
	assert.True(t, ok)
	assert.Empty(t, set.Warnings, "the bad file is gone")
}

// New reads nothing; a Load that cannot wait gets an empty listing and
// the next one the result.
func TestNothingIsReadBeforeTheFirstLoad(t *testing.T) {
	tr := newTree(t)
	tr.write(t, "ws/.claude/skills/a/SKILL.md", skillFile("a", "x"))
	lib := New(tr.dirs, nil)
	assert.Equal(t, Stats{}, lib.Stats())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	set := lib.Load(ctx)
	assert.NotNil(t, set)
	require.Eventually(t, func() bool {
		return len(lib.Load(context.Background()).Skills) == 1
	}, 10*time.Second, 5*time.Millisecond)
}

// A workspace's .claude that is a link out of the workspace, and a
// skill directory linking out, are not read; the user's links are.
func TestWorkspaceLinksOutAreNotFollowed(t *testing.T) {
	tr := newTree(t)
	outside := filepath.Join(tr.root, "elsewhere")
	tr.write(t, "elsewhere/skills/leak/SKILL.md", skillFile("leak", "from outside"))
	tr.write(t, "elsewhere/commands/leak.md", "outside\n")
	require.NoError(t, os.MkdirAll(filepath.Join(tr.dirs.Workspace, ".claude", "skills"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(outside, "skills", "leak"), filepath.Join(tr.dirs.Workspace, ".claude", "skills", "leak")))
	require.NoError(t, os.MkdirAll(filepath.Join(tr.dirs.Workspace, ".magenta"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(outside, "commands"), filepath.Join(tr.dirs.Workspace, ".magenta", "commands")))
	require.NoError(t, os.MkdirAll(filepath.Join(tr.dirs.Home, ".claude"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(outside, "skills"), filepath.Join(tr.dirs.Home, ".claude", "skills")))
	tr.write(t, "ws/.claude/skills/inside/SKILL.md", skillFile("inside", "x"))
	require.NoError(t, os.Symlink(filepath.Join(tr.dirs.Workspace, ".claude/skills/inside"), filepath.Join(tr.dirs.Workspace, ".claude/skills/alias")))

	set, _ := tr.load(t)
	var names []string
	for _, sk := range set.Skills {
		names = append(names, sk.Name+":"+string(sk.Scope))
	}
	assert.Equal(t, []string{"inside:workspace", "leak:user"}, names, "the user's linked directory is read, the workspace's link out is not")
	assert.Empty(t, set.Commands)
	assert.Contains(t, strings.Join(set.Warnings, "\n"), ".magenta/commands leads out of the workspace through a symbolic link")
	assert.Contains(t, strings.Join(set.Warnings, "\n"), "skill file .claude/skills/leak/SKILL.md: it is a symbolic link leading out of the workspace; it is skipped")
}

// A FIFO is never opened (the read would block the listing forever).
func TestAFifoIsSkipped(t *testing.T) {
	tr := newTree(t)
	dir := filepath.Join(tr.dirs.Workspace, ".claude", "commands")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	if err := mkfifo(filepath.Join(dir, "pipe.md")); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	set, _ := tr.load(t)
	assert.Empty(t, set.Commands)
	assert.Equal(t, []string{"command file .claude/commands/pipe.md: it is not a regular file; it is skipped"}, set.Warnings)
}

// More than MaxEntries files in one directory: the rest are skipped and
// the user told.
func TestTooManyFiles(t *testing.T) {
	tr := newTree(t)
	for i := range MaxEntries + 3 {
		tr.write(t, fmt.Sprintf("ws/.claude/commands/c%03d.md", i), "x\n")
	}
	set, _ := tr.load(t)
	assert.Len(t, set.Commands, MaxEntries)
	assert.Equal(t, []string{fmt.Sprintf(".claude/commands holds more than %d commands; the rest are skipped", MaxEntries)}, set.Warnings)
}

func TestDirsFor(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	assert.Equal(t, Dirs{Workspace: "/w", Home: home, ConfigHome: filepath.Join(home, ".config")}, DirsFor("/w"))
	t.Setenv("XDG_CONFIG_HOME", "/cfg")
	assert.Equal(t, "/cfg", DirsFor("/w").ConfigHome)
	assert.Equal(t, []string{"/cfg/magenta/skills", filepath.Join(home, ".claude/skills"), "/w/.magenta/skills", "/w/.claude/skills"}, DirsFor("/w").Roots("skills"))
	// The workspace is the home directory: ~/.claude counts once, as the user's.
	assert.Equal(t, []string{"/cfg/magenta/agents", filepath.Join(home, ".claude/agents"), filepath.Join(home, ".magenta/agents")}, DirsFor(home).Roots("agents"))
}
