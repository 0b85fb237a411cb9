package ripgrep

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// fakeRG is the rg in test archives: a script that answers --version.
const fakeRG = "#!/bin/sh\necho 'ripgrep 14.1.1'\n"

// testMember is the archive member name the test releases use.
const testMember = "ripgrep-14.1.1-x86_64-unknown-linux-musl/rg"

type tarEntry struct {
	name string
	body string
	typ  byte // 0 means a regular file
}

// buildArchive returns a .tar.gz of entries.
func buildArchive(t *testing.T, entries ...tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		hdr := &tar.Header{Name: e.name, Mode: 0o755, Typeflag: typ}
		if typ == tar.TypeReg {
			hdr.Size = int64(len(e.body))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if typ == tar.TypeReg {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// goodArchive is a release archive holding the fake rg under testMember.
func goodArchive(t *testing.T) []byte {
	return buildArchive(t,
		tarEntry{name: "ripgrep-14.1.1-x86_64-unknown-linux-musl/", typ: tar.TypeDir},
		tarEntry{name: "ripgrep-14.1.1-x86_64-unknown-linux-musl/README.md", body: "readme\n"},
		tarEntry{name: testMember, body: fakeRG},
	)
}

func sha(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// serve starts a local TLS server whose /rg.tar.gz is handled by h, and
// returns a release pointing at it (with digest) and a client trusting it.
func serve(t *testing.T, h http.HandlerFunc, digest string) (Release, *http.Client) {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/rg.tar.gz", h)
	srv := httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	rel := Release{Version: "14.1.1", URL: srv.URL + "/rg.tar.gz", SHA256: digest, Member: testMember}
	return rel, srv.Client()
}

// serveArchive serves data with the given digest in the release.
func serveArchive(t *testing.T, data []byte, digest string) (Release, *http.Client) {
	return serve(t, func(w http.ResponseWriter, r *http.Request) { w.Write(data) }, digest)
}

// writeTree creates files (path → contents) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// writeScript writes an executable file.
func writeScript(t *testing.T, p, body string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// needRG skips a test when no rg is installed.
func needRG(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg is not installed")
	}
	return p
}
