package ripgrep

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
)

// Where Find found rg.
const (
	SourceConfigured = "configured"
	SourcePATH       = "PATH"
	SourceManaged    = "managed"
	SourceDownloaded = "downloaded"
)

// ErrNotFound is wrapped by Find's error when no rg is available and
// downloads are disabled.
var ErrNotFound = errors.New("ripgrep (rg) not found")

// Locator finds an rg binary (see the package doc for the order) and
// installs the pinned release on request. The zero value looks on PATH
// only. A Locator is not modified by its methods and is safe for
// concurrent use.
type Locator struct {
	// Configured is a path from the user's options; when set it is the
	// only candidate, and an unusable one is an error.
	Configured string
	// DataDir is the XDG data dir (~/.local/share/nvim); managed copies
	// live in DataDir/magenta/ripgrep/<version>/rg. Empty disables
	// managed copies and downloads.
	DataDir string
	// AllowDownload lets Find download Release when nothing else is found.
	AllowDownload bool
	// Release is what Install downloads; the zero value means Pinned.
	Release Release
	// HTTPClient downloads; nil means a client with a timeout.
	HTTPClient *http.Client
}

// Find returns the rg to run and where it came from: "configured",
// "PATH", "managed" or "downloaded".
func (l *Locator) Find(ctx context.Context) (path, source string, err error) {
	if l.Configured != "" {
		p, err := exec.LookPath(l.Configured)
		if err != nil {
			return "", "", fmt.Errorf("the configured ripgrep path %q cannot be used: %w (fix the path option, or unset it to use rg from PATH)", l.Configured, err)
		}
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		return p, SourceConfigured, nil
	}
	if p, err := exec.LookPath("rg"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		return p, SourcePATH, nil
	}
	rel, relErr := l.release()
	if relErr == nil && l.DataDir != "" {
		if dest, err := managedPath(l.DataDir, rel); err == nil && isExecutable(dest) {
			return dest, SourceManaged, nil
		}
	}
	if !l.AllowDownload {
		where := "on PATH"
		if l.DataDir != "" {
			where += " or in " + filepath.Join(l.DataDir, "magenta", "ripgrep")
		}
		return "", "", fmt.Errorf("%w %s: install ripgrep (e.g. apt install ripgrep, brew install ripgrep), set the ripgrep path option to an rg binary, or enable ripgrep downloads", ErrNotFound, where)
	}
	if relErr != nil {
		return "", "", fmt.Errorf("%w on PATH, and it cannot be downloaded: %w", ErrNotFound, relErr)
	}
	p, err := l.Install(ctx)
	if err != nil {
		return "", "", fmt.Errorf("%w on PATH, and downloading it failed: %w", ErrNotFound, err)
	}
	return p, SourceDownloaded, nil
}

// Install downloads the release, verifies its sha256, and installs rg
// under DataDir, whether or not another rg exists. It returns the path of
// the installed binary. Concurrent installs are safe: each writes its own
// temporary file and the last rename wins.
func (l *Locator) Install(ctx context.Context) (string, error) {
	rel, err := l.release()
	if err != nil {
		return "", err
	}
	if l.DataDir == "" {
		return "", errors.New("install ripgrep: no data directory to install into")
	}
	dest, err := managedPath(l.DataDir, rel)
	if err != nil {
		return "", err
	}
	archive, err := fetch(ctx, l.HTTPClient, rel.URL)
	if err != nil {
		return "", err
	}
	if err := verifySHA256(archive, rel.SHA256); err != nil {
		return "", fmt.Errorf("%s: %w", rel.URL, err)
	}
	bin, err := extractMember(archive, rel.Member)
	if err != nil {
		return "", fmt.Errorf("%s: %w", rel.URL, err)
	}
	if err := installFile(dest, bin); err != nil {
		return "", fmt.Errorf("install ripgrep into %s: %w", dest, err)
	}
	return dest, nil
}

// isExecutable reports whether p is a regular file with an execute bit.
func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
