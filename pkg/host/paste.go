package host

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/magenta-nvim/magenta/pkg/imagefile"
)

// :Magenta paste-image: the host reads the system clipboard through the
// tool the system has (wl-paste on Wayland, xclip on X11, pngpaste on
// macOS), writes the image to a file in the directory Lua names (under
// stdpath("cache")) and answers its path; Lua puts @image:<path> in the
// input, so the image goes with the message like any @image mention and
// the user sees what will be sent. Reading the clipboard is the user's
// own action, not a tool call: nothing asks.

// pasteTimeout bounds one clipboard tool run.
const pasteTimeout = 5 * time.Second

// pasteImageReq: the "paste_image" request.
type pasteImageReq struct {
	Dir string `payload:"dir"`
}

// clipboardTool is one way of reading the clipboard: how to list what it
// holds (nil: the tool offers only PNG) and how to read one type.
type clipboardTool struct {
	name string
	// usable says whether the tool can work in this session (the display
	// server it talks to is there).
	usable func() bool
	types  func(ctx context.Context) ([]string, error)
	read   func(ctx context.Context, mediaType string) ([]byte, error)
}

// clipboardTools are tried in this order; the first whose program is on
// PATH and whose display is there reads the clipboard.
var clipboardTools = []clipboardTool{
	{
		name:   "wl-paste",
		usable: func() bool { return os.Getenv("WAYLAND_DISPLAY") != "" },
		types: func(ctx context.Context) ([]string, error) {
			out, err := runClipboard(ctx, "wl-paste", "--list-types")
			return strings.Fields(string(out)), err
		},
		read: func(ctx context.Context, mt string) ([]byte, error) {
			return runClipboard(ctx, "wl-paste", "--no-newline", "--type", mt)
		},
	},
	{
		name:   "xclip",
		usable: func() bool { return os.Getenv("DISPLAY") != "" },
		types: func(ctx context.Context) ([]string, error) {
			out, err := runClipboard(ctx, "xclip", "-selection", "clipboard", "-t", "TARGETS", "-o")
			return strings.Fields(string(out)), err
		},
		read: func(ctx context.Context, mt string) ([]byte, error) {
			return runClipboard(ctx, "xclip", "-selection", "clipboard", "-t", mt, "-o")
		},
	},
	{
		name:   "pngpaste",
		usable: func() bool { return true },
		read: func(ctx context.Context, _ string) ([]byte, error) {
			return runClipboard(ctx, "pngpaste", "-")
		},
	},
}

// clipboardInstallHint names what to install, for the message when no
// tool is found.
func clipboardInstallHint() string {
	if runtime.GOOS == "darwin" {
		return "install pngpaste (brew install pngpaste)"
	}
	return "install wl-clipboard (Wayland) or xclip (X11)"
}

// pasteImage answers {path} of the file written, or {error}.
func (h *Host) pasteImage(p pasteImageReq) map[string]any {
	path, err := h.pasteClipboard(p.Dir)
	if err != nil {
		return map[string]any{"error": err.Error()}
	}
	return map[string]any{"path": path}
}

func (h *Host) pasteClipboard(dir string) (string, error) {
	if dir == "" || !filepath.IsAbs(dir) {
		return "", errors.New("paste-image needs an absolute directory to write to")
	}
	ctx, cancel := context.WithTimeout(h.ctx, pasteTimeout)
	defer cancel()
	// The first tool that can work here answers: a second one would
	// read the same clipboard through another display server, if at all.
	for _, tool := range clipboardTools {
		if _, err := exec.LookPath(tool.name); err != nil || !tool.usable() {
			continue
		}
		data, err := readClipboardImage(ctx, tool)
		if err != nil {
			return "", fmt.Errorf("%s: %w", tool.name, err)
		}
		return h.savePasted(dir, data)
	}
	return "", fmt.Errorf("no clipboard tool found (wl-paste, xclip or pngpaste, with its display): %s", clipboardInstallHint())
}

// readClipboardImage reads the clipboard's image with tool: the first
// image type it offers that models take (PNG first).
func readClipboardImage(ctx context.Context, tool clipboardTool) ([]byte, error) {
	mt := imagefile.PNG
	if tool.types != nil {
		types, err := tool.types(ctx)
		if err != nil {
			return nil, err
		}
		mt = pickImageType(types)
		if mt == "" {
			held := "nothing"
			if len(types) > 0 {
				held = strings.Join(types[:min(len(types), 4)], ", ")
			}
			return nil, fmt.Errorf("the clipboard holds no image (it holds %s); copy an image, or a screenshot, first", held)
		}
	}
	data, err := tool.read(ctx, mt)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, errors.New("the clipboard holds no image")
	}
	if _, other, ok := imagefile.Sniff(data); !ok {
		if other != "" {
			return nil, fmt.Errorf("the clipboard holds a %s image; models take %s", other, imagefile.Supported)
		}
		return nil, errors.New("the clipboard holds no image")
	}
	return data, nil
}

// pickImageType is the first type models take among what the clipboard
// offers, PNG preferred (screenshots are PNG; lossless).
func pickImageType(types []string) string {
	for _, want := range []string{imagefile.PNG, imagefile.JPEG, imagefile.WebP, imagefile.GIF} {
		for _, t := range types {
			if t == want {
				return want
			}
		}
	}
	return ""
}

// savePasted writes data into dir under a name from its time and hash,
// and remembers it, so the @image mention Lua inserts reads it back.
func (h *Host) savePasted(dir string, data []byte) (string, error) {
	mt, _, _ := imagefile.Sniff(data)
	sum := sha256.Sum256(data)
	ext := strings.ToLower(imagefile.FormatName(mt))
	if ext == "jpeg" {
		ext = "jpg"
	}
	name := fmt.Sprintf("clipboard-%s-%s.%s", time.Now().Format("20060102-150405"), hex.EncodeToString(sum[:4]), ext)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("paste-image: %w", err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return "", fmt.Errorf("paste-image: %w", err)
	}
	h.images.rememberPasted(path, data)
	return path, nil
}

// runClipboard runs a clipboard tool with a deadline and a cap on what
// it prints; its error says what the tool said.
func runClipboard(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = time.Second // a tool leaving a child on the pipe
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	data, rerr := io.ReadAll(io.LimitReader(out, imagefile.MaxFileBytes+1))
	werr := cmd.Wait()
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("took longer than %s", pasteTimeout)
	case len(data) > imagefile.MaxFileBytes:
		return nil, fmt.Errorf("the clipboard's image is over %s", imagefile.Size(imagefile.MaxFileBytes))
	case werr != nil:
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = werr.Error()
		}
		// wl-paste and xclip fail this way on an empty clipboard or one
		// without the type asked for.
		return nil, fmt.Errorf("the clipboard holds no image (%s)", firstLineOf(msg))
	case rerr != nil:
		return nil, rerr
	}
	return data, nil
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
