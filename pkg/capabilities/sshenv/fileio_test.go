package sshenv

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/remotetest"
	"github.com/magenta-nvim/magenta/pkg/capabilities/sshenv/sshtest"
)

// TestFileIO runs the FileIO contract suite and the remote FileIO checks
// over one connection to the shared sshd.
func TestFileIO(t *testing.T) {
	t.Parallel()
	env, _, srv := newEnv(t, "")
	remotetest.FileIO(t, remotetest.Target{Env: env, Container: srv.Container})
}

// TestSearch: grep's searcher runs the remote rg: matches with paths
// relative to the root, secrets left out and counted there as locally,
// a missing path capabilities.ErrNotExist.
func TestSearch(t *testing.T) {
	t.Parallel()
	env, _, _ := newEnv(t, "")
	require.NotNil(t, env.Searcher, "the test image has rg")
	ctx := context.Background()
	root := "/tmp/search-" + t.Name()
	require.NoError(t, env.Files.MkdirAll(ctx, root+"/sub"))
	require.NoError(t, env.Files.WriteFile(ctx, root+"/a.go", []byte("package a\n// needle here\n")))
	require.NoError(t, env.Files.WriteFile(ctx, root+"/sub/b.txt", []byte("no\nneedle too\n")))
	require.NoError(t, env.Files.WriteFile(ctx, root+"/.env", []byte("needle=1\n")))
	res, err := env.Searcher.Search(ctx, capabilities.SearchRequest{Pattern: "needle", Path: root})
	require.NoError(t, err)
	assert.Contains(t, res.Searcher, "on "+sshtest.Alias)
	got := map[string]int{}
	for _, f := range res.Files {
		got[f.Path] = f.Lines[0].Number
	}
	assert.Equal(t, map[string]int{"a.go": 2, "sub/b.txt": 2}, got)
	assert.Equal(t, 1, res.SecretsSkipped)

	_, err = env.Searcher.Search(ctx, capabilities.SearchRequest{Pattern: "x", Path: root + "/missing"})
	require.ErrorIs(t, err, capabilities.ErrNotExist)
}
