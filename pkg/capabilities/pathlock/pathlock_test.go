package pathlock

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Increments of one counter under the lock of one path never get lost,
// and the table is empty afterwards.
func TestLockSerialisesOnePath(t *testing.T) {
	var tab Table
	counter := 0
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				unlock, err := tab.Lock(context.Background(), "/a")
				if !assert.NoError(t, err) {
					return
				}
				counter++
				unlock()
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, 1600, counter)
	assert.Empty(t, tab.locks)
}

// A waiter whose context ends gives up with its error; other paths are
// not blocked by a held one.
func TestLockWaitIsCancellable(t *testing.T) {
	var tab Table
	unlock, err := tab.Lock(context.Background(), "/a")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = tab.Lock(ctx, "/a")
	assert.ErrorIs(t, err, context.Canceled)
	other, err := tab.Lock(context.Background(), "/b")
	require.NoError(t, err)
	other()
	unlock()
	assert.Empty(t, tab.locks)
}
