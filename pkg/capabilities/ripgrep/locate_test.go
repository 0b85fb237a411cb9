package ripgrep

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// emptyPATH points PATH at a directory without rg.
func emptyPATH(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
}

// pathWithRG points PATH at a directory holding a fake rg.
func pathWithRG(t *testing.T) string {
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	return writeScript(t, filepath.Join(dir, "rg"), fakeRG)
}

// managedCopy writes a fake managed rg for the test release.
func managedCopy(t *testing.T, dataDir string) string {
	return writeScript(t, filepath.Join(dataDir, "magenta", "ripgrep", "14.1.1", "rg"), fakeRG)
}

var testRelease = Release{Version: "14.1.1", URL: "https://127.0.0.1:1/rg.tar.gz", SHA256: sha(nil), Member: testMember}

func TestFindConfigured(t *testing.T) {
	pathWithRG(t)
	want := writeScript(t, filepath.Join(t.TempDir(), "my-rg"), fakeRG)
	l := &Locator{Configured: want, DataDir: t.TempDir(), Release: testRelease}
	managedCopy(t, l.DataDir)
	p, src, err := l.Find(context.Background())
	require.NoError(t, err)
	assert.Equal(t, want, p)
	assert.Equal(t, SourceConfigured, src)
}

func TestFindConfiguredUnusable(t *testing.T) {
	pathWithRG(t) // no fallback to PATH when the option is wrong
	dir := t.TempDir()
	notExec := filepath.Join(dir, "rg-not-exec")
	require.NoError(t, os.WriteFile(notExec, []byte(fakeRG), 0o644))
	for _, p := range []string{notExec, filepath.Join(dir, "missing-rg"), dir} {
		_, _, err := (&Locator{Configured: p}).Find(context.Background())
		require.Error(t, err, p)
		assert.Contains(t, err.Error(), p)
		assert.Contains(t, err.Error(), "configured ripgrep path")
	}
}

func TestFindPATH(t *testing.T) {
	want := pathWithRG(t)
	l := &Locator{DataDir: t.TempDir(), Release: testRelease}
	managedCopy(t, l.DataDir)
	p, src, err := l.Find(context.Background())
	require.NoError(t, err)
	assert.Equal(t, want, p)
	assert.Equal(t, SourcePATH, src)
}

func TestFindManaged(t *testing.T) {
	emptyPATH(t)
	l := &Locator{DataDir: t.TempDir(), Release: testRelease, AllowDownload: true}
	want := managedCopy(t, l.DataDir)
	p, src, err := l.Find(context.Background())
	require.NoError(t, err)
	assert.Equal(t, want, p)
	assert.Equal(t, SourceManaged, src)
}

func TestFindManagedNotExecutableIsIgnored(t *testing.T) {
	emptyPATH(t)
	l := &Locator{DataDir: t.TempDir(), Release: testRelease}
	p := managedCopy(t, l.DataDir)
	require.NoError(t, os.Chmod(p, 0o644))
	_, _, err := l.Find(context.Background())
	assert.ErrorIs(t, err, ErrNotFound)
}

func TestFindNothingDownloadDisabled(t *testing.T) {
	emptyPATH(t)
	l := &Locator{DataDir: t.TempDir(), Release: testRelease}
	_, _, err := l.Find(context.Background())
	require.ErrorIs(t, err, ErrNotFound)
	for _, fix := range []string{"install ripgrep", "path option", "enable ripgrep downloads"} {
		assert.Contains(t, err.Error(), fix)
	}
}

func TestFindDownloads(t *testing.T) {
	emptyPATH(t)
	data := goodArchive(t)
	rel, client := serveArchive(t, data, sha(data))
	l := &Locator{DataDir: t.TempDir(), Release: rel, HTTPClient: client, AllowDownload: true}
	p, src, err := l.Find(context.Background())
	require.NoError(t, err)
	assert.Equal(t, SourceDownloaded, src)
	assert.Equal(t, filepath.Join(l.DataDir, "magenta", "ripgrep", "14.1.1", "rg"), p)

	// The next lookup finds the managed copy without downloading.
	p2, src, err := l.Find(context.Background())
	require.NoError(t, err)
	assert.Equal(t, SourceManaged, src)
	assert.Equal(t, p, p2)
}

func TestFindDownloadFailure(t *testing.T) {
	emptyPATH(t)
	data := goodArchive(t)
	rel, client := serveArchive(t, data, sha([]byte("other")))
	l := &Locator{DataDir: t.TempDir(), Release: rel, HTTPClient: client, AllowDownload: true}
	_, _, err := l.Find(context.Background())
	require.ErrorIs(t, err, ErrNotFound)
	assert.Contains(t, err.Error(), "sha256 mismatch")
}

// TestSearcherReportsSource searches through a Locator whose rg is a
// managed copy (a link to the real one) and checks the description.
func TestSearcherReportsSource(t *testing.T) {
	real := needRG(t)
	emptyPATH(t)
	l := &Locator{DataDir: t.TempDir(), Release: testRelease}
	dest := filepath.Join(l.DataDir, "magenta", "ripgrep", "14.1.1", "rg")
	require.NoError(t, os.MkdirAll(filepath.Dir(dest), 0o755))
	require.NoError(t, os.Symlink(real, dest))
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "needle\n"})
	res, err := New(Options{Locator: l}).Search(context.Background(), req(dir, "needle"))
	require.NoError(t, err)
	assert.Equal(t, 1, res.Matches)
	assert.Regexp(t, `^rg \d+\.\d+\.\d+ \(managed: `+regexp.QuoteMeta(dest)+`\)$`, res.Searcher)
}

func TestSearcherWithoutRG(t *testing.T) {
	emptyPATH(t)
	dir := t.TempDir()
	_, err := New(Options{}).Search(context.Background(), req(dir, "x"))
	assert.ErrorIs(t, err, ErrNotFound)
}

func TestSearcherRejectsNonRipgrep(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	writeScript(t, filepath.Join(dir, "rg"), "#!/bin/sh\necho 'GNU grep 3.11'\n")
	_, err := New(Options{}).Search(context.Background(), req(t.TempDir(), "x"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is not ripgrep")
}
