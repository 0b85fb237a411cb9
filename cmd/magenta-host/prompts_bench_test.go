package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// plantPromptFiles writes 50 skills, 50 commands and 10 agents into the
// workspace dir (BenchmarkFirstToggle: they must not slow the toggle).
func plantPromptFiles(b *testing.B, dir string) {
	write := func(rel, text string) {
		path := filepath.Join(dir, ".claude", rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 50 {
		write(fmt.Sprintf("skills/skill-%d/SKILL.md", i), fmt.Sprintf("---\nname: skill-%d\ndescription: Does task %d.\n---\nSteps.\n", i, i))
		write(fmt.Sprintf("commands/cmd-%d.md", i), fmt.Sprintf("---\ndescription: command %d\n---\nDo %d.\n", i, i))
	}
	for i := range 10 {
		write(fmt.Sprintf("agents/agent-%d.md", i), fmt.Sprintf("---\nname: agent-%d\ndescription: agent %d\n---\nYou are agent %d.\n", i, i, i))
	}
}
