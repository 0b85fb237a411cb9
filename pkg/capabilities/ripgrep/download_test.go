package ripgrep

import (
	"archive/tar"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func installer(t *testing.T, rel Release, client *http.Client) *Locator {
	return &Locator{DataDir: t.TempDir(), Release: rel, HTTPClient: client}
}

// assertNothingInstalled checks that the version directory holds no rg
// and no temporary file.
func assertNothingInstalled(t *testing.T, l *Locator) {
	t.Helper()
	dir := filepath.Join(l.DataDir, "magenta", "ripgrep", l.Release.Version)
	entries, err := os.ReadDir(dir)
	if err == nil {
		assert.Empty(t, entries, "files left in %s", dir)
	} else {
		assert.ErrorIs(t, err, os.ErrNotExist)
	}
}

func TestInstall(t *testing.T) {
	data := goodArchive(t)
	rel, client := serveArchive(t, data, sha(data))
	l := installer(t, rel, client)
	p, err := l.Install(context.Background())
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(l.DataDir, "magenta", "ripgrep", "14.1.1", "rg"), p)
	fi, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), fi.Mode().Perm())
	body, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, fakeRG, string(body))
	v, err := rgVersion(context.Background(), p)
	require.NoError(t, err)
	assert.Equal(t, "14.1.1", v)
	entries, err := os.ReadDir(filepath.Dir(p))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "temporary files left behind")
}

func TestInstallSHAMismatch(t *testing.T) {
	data := goodArchive(t)
	wrong := sha([]byte("something else"))
	rel, client := serveArchive(t, data, wrong)
	l := installer(t, rel, client)
	_, err := l.Install(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "sha256 mismatch")
	assert.Contains(t, err.Error(), sha(data))
	assert.Contains(t, err.Error(), wrong)
	assertNothingInstalled(t, l)
}

func TestInstallHTTPError(t *testing.T) {
	rel, client := serve(t, http.NotFound, sha(nil))
	l := installer(t, rel, client)
	_, err := l.Install(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "404")
	assertNothingInstalled(t, l)
}

func TestInstallTruncatedArchive(t *testing.T) {
	data := goodArchive(t)
	short := data[:len(data)/2]
	// The digest matches the truncated bytes, so only extraction fails.
	rel, client := serveArchive(t, short, sha(short))
	l := installer(t, rel, client)
	_, err := l.Install(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "read archive")
	assertNothingInstalled(t, l)
}

func TestInstallTruncatedDownload(t *testing.T) {
	data := goodArchive(t)
	rel, client := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.Write(data[:len(data)/2]) // the connection closes short
	}, sha(data))
	l := installer(t, rel, client)
	_, err := l.Install(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "download")
	assertNothingInstalled(t, l)
}

func TestInstallMemberMissing(t *testing.T) {
	data := buildArchive(t, tarEntry{name: "ripgrep-14.1.1-x86_64-unknown-linux-musl/rg.1", body: "man page"})
	rel, client := serveArchive(t, data, sha(data))
	l := installer(t, rel, client)
	_, err := l.Install(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "archive has no "+testMember)
	assertNothingInstalled(t, l)
}

func TestInstallRejectsUnsafeNames(t *testing.T) {
	for _, name := range []string{"../evil", "ripgrep-14.1.1-x86_64-unknown-linux-musl/../../evil", "/etc/evil"} {
		t.Run(name, func(t *testing.T) {
			data := buildArchive(t,
				tarEntry{name: testMember, body: fakeRG},
				tarEntry{name: name, body: "#!/bin/sh\necho pwned\n"},
			)
			rel, client := serveArchive(t, data, sha(data))
			l := installer(t, rel, client)
			_, err := l.Install(context.Background())
			require.Error(t, err)
			assert.Contains(t, err.Error(), "unsafe name")
			assertNothingInstalled(t, l)
			_, err = os.Stat(filepath.Join(l.DataDir, "magenta", "ripgrep", "evil"))
			assert.ErrorIs(t, err, os.ErrNotExist)
		})
	}
}

func TestInstallRejectsNonRegularMember(t *testing.T) {
	data := buildArchive(t, tarEntry{name: testMember, typ: tar.TypeSymlink})
	rel, client := serveArchive(t, data, sha(data))
	l := installer(t, rel, client)
	_, err := l.Install(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a regular file")
	assertNothingInstalled(t, l)
}

func TestInstallTooLarge(t *testing.T) {
	big := make([]byte, MaxArchiveBytes+1)
	rel, client := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(big)))
		w.Write(big)
	}, sha(big))
	l := installer(t, rel, client)
	_, err := l.Install(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "allowed")
	assertNothingInstalled(t, l)

	// Without a Content-Length the cap applies while reading.
	rel, client = serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.(http.Flusher).Flush() // headers out: the body is chunked
		w.Write(big)
	}, sha(big))
	l = installer(t, rel, client)
	_, err = l.Install(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "allowed")
	assertNothingInstalled(t, l)
}

func TestInstallNeedsHTTPS(t *testing.T) {
	l := &Locator{DataDir: t.TempDir(), Release: Release{Version: "1", URL: "http://127.0.0.1:1/rg.tar.gz", SHA256: sha(nil), Member: "rg"}}
	_, err := l.Install(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not an https URL")
}

func TestInstallNeedsDataDir(t *testing.T) {
	l := &Locator{Release: Release{Version: "1", URL: "https://127.0.0.1:1/rg.tar.gz", SHA256: sha(nil), Member: "rg"}}
	_, err := l.Install(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no data directory")
}

func TestInstallRejectsBadVersion(t *testing.T) {
	l := &Locator{DataDir: t.TempDir(), Release: Release{Version: "../x", URL: "https://127.0.0.1:1/rg.tar.gz", SHA256: sha(nil), Member: "rg"}}
	_, err := l.Install(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "invalid version")
}

func TestInstallConcurrent(t *testing.T) {
	data := goodArchive(t)
	rel, client := serveArchive(t, data, sha(data))
	l := installer(t, rel, client)
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Go(func() { _, errs[i] = l.Install(context.Background()) })
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	p, err := managedPath(l.DataDir, rel)
	require.NoError(t, err)
	body, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, fakeRG, string(body))
	entries, err := os.ReadDir(filepath.Dir(p))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "temporary files left behind")
}

func TestPinnedRelease(t *testing.T) {
	rel, err := (&Locator{}).release()
	if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
		require.NoError(t, err)
		assert.Equal(t, Pinned, rel)
		return
	}
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no pinned ripgrep build for "+runtime.GOOS+"/"+runtime.GOARCH)
}
