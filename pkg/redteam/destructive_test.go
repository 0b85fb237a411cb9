package redteam_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// attackDestructive: commands that destroy work in the workspace (which
// the sandbox lets them write) must ask; declined, src/ and its
// uncommitted change are still there.
func attackDestructive(t *testing.T) {
	for _, cmd := range []string{
		"find src -delete",
		"git checkout -- .",
		`python3 -c 'import shutil; shutil.rmtree("src")'`,
	} {
		t.Run(cmd, func(t *testing.T) {
			w := newWorld(t)
			s := newStack(t, w)
			o := s.exec(t, cmd)
			requireNoLeak(t, o)
			for rel, text := range srcFiles {
				if rel == "src/main.go" {
					text += srcWork
				}
				require.Equal(t, text, fileText(filepath.Join(w.ws, rel)), "%s lost or changed:\n%s", rel, o)
			}
			requireAsked(t, o)
		})
	}
}
