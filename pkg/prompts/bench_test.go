package prompts

import (
	"context"
	"fmt"
	"testing"
)

// plant writes 50 skills, 50 commands and 10 agents, half in the
// workspace and half in the user's directories.
func plant(b *testing.B) tree {
	tr := newTree(b)
	for i := range 50 {
		where := "ws/.claude"
		if i%2 == 1 {
			where = "home/.claude"
		}
		tr.write(b, fmt.Sprintf("%s/skills/skill-%d/SKILL.md", where, i), skillFile(fmt.Sprintf("skill-%d", i), "Does task number "+fmt.Sprint(i)+" when the user asks for it."))
		tr.write(b, fmt.Sprintf("%s/commands/cmd-%d.md", where, i), "---\ndescription: command "+fmt.Sprint(i)+"\nargument-hint: [file] [line]\n---\nDo $1 at $2.\n")
	}
	for i := range 10 {
		tr.write(b, fmt.Sprintf("ws/.claude/agents/agent-%d.md", i), fmt.Sprintf("---\nname: agent-%d\ndescription: agent %d\ntools: Read, Grep\n---\nYou are agent %d.\n", i, i, i))
	}
	return tr
}

// BenchmarkDiscovery: the first listing of 50 skills, 50 commands and
// 10 agents (every directory listed, every file read and parsed), a
// recheck when nothing changed (listed and stat'ed, nothing read), and
// a Load within the recheck interval (the cached listing).
func BenchmarkDiscovery(b *testing.B) {
	tr := plant(b)
	ctx := context.Background()
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			lib := New(tr.dirs, nil)
			if set := lib.Load(ctx); len(set.Skills) != 50 || len(set.Commands) != 50 || len(set.Agents) != 10 {
				b.Fatalf("found %d/%d/%d: %v", len(set.Skills), len(set.Commands), len(set.Agents), set.Warnings)
			}
		}
	})
	b.Run("recheck-unchanged", func(b *testing.B) {
		lib := New(tr.dirs, nil)
		lib.Recheck = 0
		lib.Load(ctx)
		read := lib.Stats().FilesRead
		for b.Loop() {
			lib.Load(ctx)
		}
		if lib.Stats().FilesRead != read {
			b.Fatal("a recheck read files that did not change")
		}
	})
	b.Run("cached", func(b *testing.B) {
		lib := New(tr.dirs, nil)
		lib.Load(ctx)
		for b.Loop() {
			lib.Load(ctx)
		}
	})
}
