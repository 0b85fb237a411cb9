package guard

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localfs"
)

// A confined process flips notes.txt between a plain file and a symlink
// to a home secret while reads of it run in parallel. Every question is
// declined, so a read may return the plain file, fail as declined or
// fail as changed, and never return the secret: the read opens the path
// the check judged, following no symlink.
func TestReadOfAFileSwappedForASecretLinkNeverLeaks(t *testing.T) {
	ws, home := realDir(t), realDir(t)
	secret := filepath.Join(home, ".ssh", "id_rsa")
	require.NoError(t, os.MkdirAll(filepath.Dir(secret), 0o700))
	require.NoError(t, os.WriteFile(secret, []byte("PRIVATE KEY MATERIAL\n"), 0o600))
	notes := filepath.Join(ws, "notes.txt")
	require.NoError(t, os.WriteFile(notes, []byte("just notes\n"), 0o644))

	var b *approval.Broker
	var asked atomic.Int64
	b = approval.NewBroker(func(_ string, added *approval.Request) {
		if added != nil {
			asked.Add(1)
			go b.Answer(added.ID, approval.Deny)
		}
	})
	g := NewFileIO(localfs.New(), FileOptions{Workspace: ws, Broker: b, Remembered: NewRemembered()})

	done := make(chan struct{})
	var flipper sync.WaitGroup
	flipper.Add(1)
	go func() {
		defer flipper.Done()
		link, plain := filepath.Join(ws, ".link"), filepath.Join(ws, ".plain")
		for {
			select {
			case <-done:
				return
			default:
			}
			_ = os.Remove(link)
			if err := os.Symlink(secret, link); err != nil {
				t.Errorf("flip: %v", err)
				return
			}
			mustRename(t, link, notes)
			if err := os.WriteFile(plain, []byte("just notes\n"), 0o644); err != nil {
				t.Errorf("flip: %v", err)
				return
			}
			mustRename(t, plain, notes)
		}
	}()

	const readers, readsEach = 8, 400
	var leaked, plain, changed, declined atomic.Int64
	var wg sync.WaitGroup
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range readsEach {
				var data []byte
				var err error
				if r%2 == 0 {
					data, err = g.ReadFile(context.Background(), notes)
				} else {
					var rc io.ReadCloser
					if rc, err = g.Open(context.Background(), notes); err == nil {
						data, err = io.ReadAll(rc)
						rc.Close()
					}
				}
				switch {
				case strings.Contains(string(data), "PRIVATE"):
					leaked.Add(1)
				case errors.Is(err, capabilities.ErrChangedWhileChecked):
					changed.Add(1)
				case errors.Is(err, capabilities.ErrPermissionDenied):
					declined.Add(1)
				case err == nil:
					plain.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	flipper.Wait()

	assert.Zero(t, leaked.Load(), "reads returned the secret")
	assert.NotZero(t, plain.Load(), "no read saw the plain file")
	t.Logf("%d plain, %d changed while checked, %d declined (%d questions), %d leaked of %d",
		plain.Load(), changed.Load(), declined.Load(), asked.Load(), leaked.Load(), readers*readsEach)
}

// The same swap one directory up: a directory of the workspace becomes a
// link to ~/.ssh between the check and the open.
func TestReadThroughADirectorySwappedForALinkFails(t *testing.T) {
	ws, home := realDir(t), realDir(t)
	ssh := filepath.Join(home, ".ssh")
	require.NoError(t, os.MkdirAll(ssh, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(ssh, "id_rsa"), []byte("PRIVATE"), 0o600))
	dir := filepath.Join(ws, "dir")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "id_rsa"), []byte("public"), 0o644))

	// Judged as ws/dir/id_rsa, then dir is swapped for a link to ~/.ssh.
	ctx := capabilities.WithChecked(context.Background(), capabilities.Checked{Path: filepath.Join(dir, "id_rsa")})
	require.NoError(t, os.Rename(dir, filepath.Join(ws, "parked")))
	require.NoError(t, os.Symlink(ssh, dir))
	data, err := localfs.New().ReadFile(ctx, filepath.Join(dir, "id_rsa"))
	assert.ErrorIs(t, err, capabilities.ErrChangedWhileChecked)
	assert.Empty(t, data)
	assert.Contains(t, err.Error(), "the file changed while it was being checked; read it again")
}

// A log root planted as a symlink (to "/", say) grants nothing, and no
// readable root lets a secret below it be read without asking.
func TestReadableRootsGrantNoSecretsAndNoPlantedLinks(t *testing.T) {
	ws, home, logs := realDir(t), realDir(t), realDir(t)
	planted := filepath.Join(realDir(t), "magenta")
	require.NoError(t, os.Symlink("/", planted))
	g := NewFileIO(&okFS{}, FileOptions{
		Workspace: ws, Readable: []string{planted, logs},
		Broker: approval.NewBroker(nil), Remembered: NewRemembered(),
	})
	assert.Equal(t, []string{logs}, g.o.Readable, "the planted root is dropped")
	assert.Contains(t, g.reason(filepath.Join(home, ".ssh", "id_rsa"), false), "outside the workspace and a secret (.ssh)")
	assert.Contains(t, g.reason(filepath.Join(home, "notes.txt"), false), "outside the workspace")
	assert.Empty(t, g.reason(filepath.Join(logs, "threads", "t", "tools", "c", "bashCommand.log"), false))
	assert.Contains(t, g.reason(filepath.Join(logs, "threads", ".env"), false), "outside the workspace")

	// Even a root that resolves to "/" without being a link grants nothing.
	g = NewFileIO(&okFS{}, FileOptions{Workspace: ws, Readable: []string{"/"}, Broker: approval.NewBroker(nil), Remembered: NewRemembered()})
	assert.Empty(t, g.o.Readable)

	// A user rule allows what it covers except secrets below its root.
	g = NewFileIO(&okFS{}, FileOptions{
		Workspace: ws, Rules: []FileRule{{Path: home, Read: true}, {Path: filepath.Join(home, ".aws"), Read: true}},
		Broker: approval.NewBroker(nil), Remembered: NewRemembered(),
	})
	assert.Empty(t, g.reason(filepath.Join(home, "notes.txt"), false))
	assert.Contains(t, g.reason(filepath.Join(home, ".ssh", "id_rsa"), false), "a secret")
	assert.Empty(t, g.reason(filepath.Join(home, ".aws", "config"), false), "a rule naming the secret directory allows it")
}

// Refusing answers what would ask with the reason, without a question,
// and still honours what the user approved for the thread.
func TestRefusingRefusesWhatWouldAsk(t *testing.T) {
	ws, home := realDir(t), realDir(t)
	secret := filepath.Join(home, "id_rsa")
	require.NoError(t, os.WriteFile(secret, []byte("PRIVATE"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a"), 0o644))
	require.NoError(t, os.Symlink(secret, filepath.Join(ws, "notes.txt")))
	b := approval.NewBroker(func(string, *approval.Request) { t.Error("a refusing FileIO asked") })
	r := NewRemembered()
	g := NewFileIO(localfs.New(), FileOptions{Workspace: ws, Broker: b, Remembered: r}).Refusing()

	data, err := g.ReadFile(context.Background(), filepath.Join(ws, "a.txt"))
	require.NoError(t, err)
	assert.Equal(t, "a", string(data))
	_, err = g.ReadFile(context.Background(), filepath.Join(ws, "notes.txt"))
	require.ErrorIs(t, err, capabilities.ErrPermissionDenied)
	assert.Contains(t, err.Error(), secret)
	assert.Contains(t, err.Error(), "outside the workspace")

	ctx := capabilities.WithCall(context.Background(), capabilities.CallInfo{ThreadID: "t1"})
	r.Remember(KindFileRead, "t1\x00"+secret)
	data, err = g.ReadFile(ctx, filepath.Join(ws, "notes.txt"))
	require.NoError(t, err, "approved for this thread")
	assert.Equal(t, "PRIVATE", string(data))
}
