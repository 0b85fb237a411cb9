package capabilitytest

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

func testUpdate(t *testing.T, setup setupFunc) {
	fs, root := setup(t)
	file := filepath.Join(root, "u.txt")
	write(t, fs, file, []byte("one\ntwo\n"))
	var seen string
	require.NoError(t, fs.Update(bg, file, 1<<20, func(old []byte) ([]byte, error) {
		seen = string(old)
		return []byte(strings.ToUpper(string(old))), nil
	}))
	assert.Equal(t, "one\ntwo\n", seen)
	got, err := fs.ReadFile(bg, file)
	require.NoError(t, err)
	assert.Equal(t, "ONE\nTWO\n", string(got))

	never := func([]byte) ([]byte, error) {
		t.Error("change called")
		return nil, nil
	}
	for _, missing := range []string{filepath.Join(root, "missing.txt"), filepath.Join(root, "nodir", "x.txt")} {
		requireErr(t, fs.Update(bg, missing, 1<<20, never), capabilities.ErrNotExist, missing)
	}
	dir := filepath.Join(root, "d")
	require.NoError(t, fs.MkdirAll(bg, dir))
	requireErr(t, fs.Update(bg, dir, 1<<20, never), capabilities.ErrIsDirectory, dir)

	err = fs.Update(bg, file, 7, never)
	requireErr(t, err, capabilities.ErrTooLarge, file)
	var tooLarge *capabilities.TooLargeError
	require.ErrorAs(t, err, &tooLarge)
	assert.Equal(t, capabilities.TooLargeError{Size: 8, Max: 7}, *tooLarge)
	require.NoError(t, fs.Update(bg, file, 8, func(old []byte) ([]byte, error) { return old, nil }), "exactly at the cap")

	refused := errors.New("refused")
	err = fs.Update(bg, file, 1<<20, func([]byte) ([]byte, error) { return []byte("lost"), refused })
	assert.ErrorIs(t, err, refused)
	got, err = fs.ReadFile(bg, file)
	require.NoError(t, err)
	assert.Equal(t, "ONE\nTWO\n", string(got), "a refused change wrote")
}

// testSharedFile runs what one model reply does: several edits of one
// file at once. Each Update appends its line; none may be lost.
func testSharedFile(t *testing.T, setup setupFunc) {
	fs, root := setup(t)
	shared, other := filepath.Join(root, "shared.txt"), filepath.Join(root, "other.txt")
	write(t, fs, shared, []byte("start\n"))
	write(t, fs, other, []byte(""))
	const workers, rounds = 8, 20
	var wg sync.WaitGroup
	errs := make(chan error, 2*workers)
	for w := range workers {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for r := range rounds {
				line := fmt.Sprintf("w%d r%d\n", w, r)
				if err := fs.Update(bg, shared, 1<<20, func(old []byte) ([]byte, error) {
					return append(old, line...), nil
				}); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
		go func() {
			defer wg.Done()
			for r := range rounds {
				if err := fs.WriteFile(bg, other, []byte(fmt.Sprintf("w%d r%d\n", w, r))); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	got, err := fs.ReadFile(bg, shared)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
	require.Equal(t, "start", lines[0])
	lines = lines[1:]
	want := make([]string, 0, workers*rounds)
	for w := range workers {
		for r := range rounds {
			want = append(want, fmt.Sprintf("w%d r%d", w, r))
		}
	}
	sort.Strings(lines)
	sort.Strings(want)
	assert.Equal(t, want, lines, "every appended line is there, once")
}
