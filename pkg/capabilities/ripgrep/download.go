package ripgrep

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Release is a ripgrep build to download: an https URL of a .tar.gz, the
// sha256 of that archive (hex), and the archive member that is rg.
type Release struct {
	Version, URL, SHA256, Member string
}

// Pinned is the release Install downloads on linux/amd64 (a static musl
// build, so it runs on any distribution).
var Pinned = Release{
	Version: "14.1.1",
	URL:     "https://github.com/BurntSushi/ripgrep/releases/download/14.1.1/ripgrep-14.1.1-x86_64-unknown-linux-musl.tar.gz",
	SHA256:  "4cf9f2741e6c465ffdb7c26f38056a59e2a2544b51f7cc128ef28337eeae4d8e",
	Member:  "ripgrep-14.1.1-x86_64-unknown-linux-musl/rg",
}

// Download limits.
const (
	// DownloadTimeout bounds one download, headers to last byte.
	DownloadTimeout = 2 * time.Minute
	// MaxArchiveBytes caps the archive (14.1.1 is about 2.5 MB).
	MaxArchiveBytes = 20 << 20
	// MaxBinaryBytes caps the extracted rg (14.1.1 is about 6 MB).
	MaxBinaryBytes = 32 << 20
)

// release returns the Release to install: l.Release if set, otherwise
// Pinned where it runs.
func (l *Locator) release() (Release, error) {
	r := l.Release
	if r == (Release{}) {
		if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
			return Release{}, fmt.Errorf("no pinned ripgrep build for %s/%s: install ripgrep with your package manager or set the ripgrep path option", runtime.GOOS, runtime.GOARCH)
		}
		r = Pinned
	}
	if r.URL == "" || r.SHA256 == "" || r.Member == "" || r.Version == "" {
		return Release{}, errors.New("ripgrep release: version, URL, sha256 and member are all required")
	}
	return r, nil
}

// managedPath is where release r lives under dataDir.
func managedPath(dataDir string, r Release) (string, error) {
	v := r.Version
	if v == "" || v == "." || v == ".." || strings.ContainsAny(v, `/\`) {
		return "", fmt.Errorf("ripgrep release: invalid version %q", v)
	}
	return filepath.Join(dataDir, "magenta", "ripgrep", v, "rg"), nil
}

// fetch downloads an https URL into memory, at most MaxArchiveBytes.
func fetch(ctx context.Context, client *http.Client, rawURL string) ([]byte, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("ripgrep release: %q is not an https URL", rawURL)
	}
	if client == nil {
		client = &http.Client{Timeout: DownloadTimeout}
	}
	ctx, cancel := context.WithTimeout(ctx, DownloadTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("download %s: %w", rawURL, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("download %s: %w", rawURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("download %s: HTTP %s", rawURL, resp.Status)
	}
	if resp.ContentLength > MaxArchiveBytes {
		return nil, fmt.Errorf("download %s: %d bytes is more than the %d allowed", rawURL, resp.ContentLength, MaxArchiveBytes)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxArchiveBytes+1))
	if err != nil {
		return nil, fmt.Errorf("download %s: %w", rawURL, err)
	}
	if len(data) > MaxArchiveBytes {
		return nil, fmt.Errorf("download %s: more than the %d bytes allowed", rawURL, MaxArchiveBytes)
	}
	return data, nil
}

// verifySHA256 checks data against a hex digest before anything of it is
// used.
func verifySHA256(data []byte, want string) error {
	sum := sha256.Sum256(data)
	got := hex.EncodeToString(sum[:])
	if !strings.EqualFold(got, strings.TrimSpace(want)) {
		return fmt.Errorf("sha256 mismatch: got %s, want %s; nothing was installed", got, want)
	}
	return nil
}

// extractMember returns the contents of the regular file member in a
// .tar.gz. The whole archive is read: an entry with an absolute or ".."
// name, a truncated stream or a duplicate member rejects it.
func extractMember(archive []byte, member string) ([]byte, error) {
	want := path.Clean(member)
	gz, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		return nil, fmt.Errorf("read archive: %w", err)
	}
	tr := tar.NewReader(gz)
	var found []byte
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read archive: %w", err)
		}
		if !safeName(hdr.Name) {
			return nil, fmt.Errorf("archive entry %q has an unsafe name", hdr.Name)
		}
		if path.Clean(strings.TrimPrefix(hdr.Name, "./")) != want {
			continue
		}
		if found != nil {
			return nil, fmt.Errorf("archive has %s twice", member)
		}
		if !hdr.FileInfo().Mode().IsRegular() {
			return nil, fmt.Errorf("archive entry %s is not a regular file", member)
		}
		if hdr.Size > MaxBinaryBytes {
			return nil, fmt.Errorf("archive entry %s: %d bytes is more than the %d allowed", member, hdr.Size, MaxBinaryBytes)
		}
		found, err = io.ReadAll(io.LimitReader(tr, MaxBinaryBytes+1))
		if err != nil {
			return nil, fmt.Errorf("read archive entry %s: %w", member, err)
		}
		if len(found) > MaxBinaryBytes {
			return nil, fmt.Errorf("archive entry %s is more than the %d bytes allowed", member, MaxBinaryBytes)
		}
	}
	// Reading to the end of the tar stream does not reach the gzip
	// trailer; its checksum is verified only by a read that hits EOF.
	if _, err := io.Copy(io.Discard, gz); err != nil {
		return nil, fmt.Errorf("read archive: %w", err)
	}
	if found == nil {
		return nil, fmt.Errorf("archive has no %s", member)
	}
	return found, nil
}

// safeName rejects absolute names and names with a ".." element.
func safeName(name string) bool {
	if name == "" || strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) {
		return false
	}
	for _, el := range strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' }) {
		if el == ".." {
			return false
		}
	}
	return true
}

// installFile writes data to dest atomically: a temporary file in the same
// directory, mode 0755, fsynced, then renamed over dest.
func installFile(dest string, data []byte) (err error) {
	dir := filepath.Dir(dest)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".rg-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(0o755); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, dest); err != nil {
		return err
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync() // make the rename durable; best effort
		d.Close()
	}
	return nil
}
