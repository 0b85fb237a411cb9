package host

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// MaxLogBytes is where the log is rotated (to <log>.1) at start-up.
const MaxLogBytes = 10 << 20

var logLevel = new(slog.LevelVar)

// OpenLog sends slog output to path (rotating a large file first), never
// to stdout, which carries RPC. An empty path logs to stderr, which
// Neovim collects.
func OpenLog(path string) (io.Closer, error) {
	if path == "" {
		slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: logLevel})))
		return io.NopCloser(nil), nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("log directory: %w", err)
	}
	if st, err := os.Stat(path); err == nil && st.Size() > MaxLogBytes {
		_ = os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("log file: %w", err)
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: logLevel})))
	return f, nil
}

// setLogLevel applies the logLevel option ("debug", "info", "warn",
// "error"); anything else keeps the current level.
func setLogLevel(s string) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(s))); err == nil {
		logLevel.Set(l)
	}
}
