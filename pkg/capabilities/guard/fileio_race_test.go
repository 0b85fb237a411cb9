package guard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localfs"
)

// A directory of the workspace flips between a real directory and a
// symlink leading outside while writes into it run. The guard judged each
// path inside the workspace, so no write may land outside: the disk write
// resolves the path beneath the workspace's directory handle and fails
// when it meets the link. Requests the flip turns into "outside the
// workspace" are declined.
func TestWriteCannotBeCarriedOutOfTheWorkspaceBySwappingADirectory(t *testing.T) {
	ws, outside := realDir(t), realDir(t)
	var b *approval.Broker
	b = approval.NewBroker(func(_ string, added *approval.Request) {
		if added != nil {
			go b.Answer(added.ID, approval.Deny)
		}
	})
	g := NewFileIO(localfs.New(), FileOptions{Workspace: ws, Broker: b, Remembered: NewRemembered()})
	dir, parked, link := filepath.Join(ws, "dir"), filepath.Join(ws, "parked"), filepath.Join(ws, "link")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.Symlink(outside, link))

	const writers, writesEach = 4, 500
	done := make(chan struct{})
	var flipper sync.WaitGroup
	flipper.Add(1)
	go func() {
		defer flipper.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			// dir → parked, link → dir (dir now leads outside), and back.
			mustRename(t, dir, parked)
			mustRename(t, link, dir)
			mustRename(t, dir, link)
			mustRename(t, parked, dir)
		}
	}()
	var wg sync.WaitGroup
	var mu sync.Mutex
	written := 0
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range writesEach {
				path := filepath.Join(dir, fmt.Sprintf("w%d-%d.txt", w, i))
				if g.WriteFile(context.Background(), path, []byte("x")) == nil {
					mu.Lock()
					written++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	flipper.Wait()

	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Empty(t, names, "written outside the workspace")
	t.Logf("%d of %d writes landed in the workspace", written, writers*writesEach)
}

// realDir is a temporary directory by its resolved path (TMPDIR may be a
// symlink).
func realDir(t *testing.T) string {
	d, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	return d
}

func mustRename(t *testing.T, from, to string) {
	if err := os.Rename(from, to); err != nil {
		t.Errorf("flip: %v", err)
	}
}
