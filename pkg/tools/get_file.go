package tools

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/imagefile"
)

// What get_file returns per call.
const (
	GetFileMaxLines  = 1000
	GetFileMaxBytes  = 100 << 10
	GetFileLineChars = 2000
	// binarySniff is how much of a file decides whether it is text.
	binarySniff = 8 << 10
)

//go:embed get_file.md
var getFileDescription string

// GetFileParams is the input of get_file.
type GetFileParams struct {
	Path      string `json:"path" jsonschema:"the file to read, relative to the workspace root"`
	StartLine int    `json:"startLine,omitempty" jsonschema:"first line to read, 1-based (default 1)"`
	NumLines  int    `json:"numLines,omitempty" jsonschema:"how many lines to read (default and maximum: the per-call cap)"`
}

type getFileTool struct{ Tool }

// GetFile returns the get_file tool.
func GetFile() Tool {
	data := map[string]any{
		"MaxLines": GetFileMaxLines, "MaxKB": GetFileMaxBytes >> 10, "LineChars": GetFileLineChars,
		"ImageTypes": imagefile.Supported, "ImageSide": imagefile.Bounds.MaxSide,
		"ImageMB": fmt.Sprintf("%.3g", float64(imagefile.Bounds.MaxBytes)/(1<<20)), "ScaledSide": imagefile.ScaledSide,
		"ImageFileMB": imagefile.MaxFileBytes >> 20,
	}
	return &getFileTool{Tool: MustTyped("get_file", getFileDescription, data, runGetFile)}
}

// Describe implements Describer.
func (*getFileTool) Describe(input []byte) (string, string) {
	var p GetFileParams
	if json.Unmarshal(input, &p) != nil {
		return "", ""
	}
	if p.StartLine > 1 {
		return fmt.Sprintf("%s from line %d", p.Path, p.StartLine), ""
	}
	return p.Path, ""
}

func runGetFile(ctx context.Context, call Call, p GetFileParams) Result {
	if strings.TrimSpace(p.Path) == "" {
		return Errorf("path must not be empty")
	}
	if p.StartLine < 0 || p.NumLines < 0 {
		return Errorf("startLine and numLines must be positive")
	}
	if call.Env == nil || call.Env.Files == nil {
		return Errorf("this environment cannot read files")
	}
	path := resolveToolPath(call.Env, p.Path)
	r, err := call.Env.Files.Open(ctx, path)
	if err != nil {
		return fileError(path, err)
	}
	defer r.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(binarySniff)
	if _, other, ok := imagefile.Sniff(head); ok {
		return readImage(br, path)
	} else if other != "" && other != "SVG" { // SVG is text, and read as text
		return Errorf(fmt.Sprintf("%s is a %s image; models take %s only. Convert it (for example with ImageMagick: convert in out.png) and read that", path, other, imagefile.Supported))
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return Errorf(fmt.Sprintf("%s is a binary file; get_file shows text only", path))
	}
	return readLines(br, path, max(p.StartLine, 1), p.NumLines)
}

// readImage reads an image (the format told by its content) and returns
// it as an image for the model, scaled down when over the providers'
// bounds (imagefile.Prepare); a corrupt, truncated or oversized file
// gets a result saying which.
func readImage(r io.Reader, path string) Result {
	data, err := io.ReadAll(io.LimitReader(r, imagefile.MaxFileBytes+1))
	if err != nil {
		return Errorf(fmt.Sprintf("read %s: %v", path, err))
	}
	if len(data) > imagefile.MaxFileBytes {
		return Errorf(fmt.Sprintf("%s is an image over %d MB; scale it down first (for example with ImageMagick: convert in -resize %dx%d out.png)", path, imagefile.MaxFileBytes>>20, imagefile.ScaledSide, imagefile.ScaledSide))
	}
	img, err := imagefile.Prepare(data)
	if err != nil {
		return Errorf(fmt.Sprintf("%s was not read: %v", path, err))
	}
	return Result{
		Text:    fmt.Sprintf("%s: an image, %s. It follows.", path, img),
		Images:  []Image{{MediaType: img.MediaType, Data: img.Data}},
		Summary: "image",
	}
}

// readLines streams from line start, numbering lines, until the line or
// byte cap, and says where to continue. It reads no further than it
// shows (plus one line to know whether the file goes on).
func readLines(br *bufio.Reader, path string, start, want int) Result {
	if want <= 0 || want > GetFileMaxLines {
		want = GetFileMaxLines
	}
	var b strings.Builder
	line, shown, size := 0, 0, 0
	more := false
	for {
		text, err := readLine(br)
		if err == io.EOF && text == "" {
			break
		}
		if err != nil && err != io.EOF {
			return Errorf(fmt.Sprintf("read %s: %v", path, err))
		}
		line++
		if line >= start {
			if shown == want || size >= GetFileMaxBytes {
				more = true
				break
			}
			text = cutMiddle(strings.ToValidUTF8(strings.TrimSuffix(text, "\r"), "\uFFFD"), GetFileLineChars)
			fmt.Fprintf(&b, "%d\t%s\n", line, text)
			shown++
			size += len(text) + 8
		}
		if err == io.EOF {
			break
		}
	}
	switch {
	case line == 0:
		return Result{Text: path + " is empty.", Summary: "empty"}
	case shown == 0:
		return Errorf(fmt.Sprintf("%s has %d lines; startLine %d is past the end", path, line, start))
	case more:
		next := start + shown
		fmt.Fprintf(&b, "(%s continues; read from startLine %d for more)", path, next)
		return Result{Text: b.String(), Summary: fmt.Sprintf("lines %d–%d (more follow)", start, next-1)}
	}
	return Result{Text: strings.TrimSuffix(b.String(), "\n"), Summary: fmt.Sprintf("lines %d–%d", start, start+shown-1)}
}

// readLine reads one line without its newline, keeping at most about
// twice the display cap of a very long line in memory.
func readLine(br *bufio.Reader) (string, error) {
	var buf []byte
	dropped := 0
	for {
		chunk, isPrefix, err := br.ReadLine()
		if len(buf) < 2*GetFileLineChars*4 {
			buf = append(buf, chunk...)
		} else {
			dropped += len(chunk)
		}
		if err != nil {
			return string(buf), err
		}
		if !isPrefix {
			if dropped > 0 {
				return string(buf) + fmt.Sprintf(" … [%d more bytes]", dropped), nil
			}
			return string(buf), nil
		}
	}
}

// fileOp names what a file tool did, for its results: what it is called
// in an error and how the result says it did not happen.
type fileOp struct{ verb, notDone string }

var (
	opRead  = fileOp{"read", "was not read"}
	opEdit  = fileOp{"edit", "was not changed"}
	opWrite = fileOp{"write", "was not written"}
)

// fileError turns a FileIO error from reading into a result the model can
// act on.
func fileError(path string, err error) Result { return fileOpError(opRead, path, err) }

// fileOpError turns a FileIO error into a result the model can act on,
// worded for what the tool was doing.
func fileOpError(op fileOp, path string, err error) Result {
	var denied *capabilities.DeniedError
	var tooLarge *capabilities.TooLargeError
	switch {
	case errors.As(err, &denied):
		return Result{Text: fmt.Sprintf("%s %s: %s.", path, op.notDone, denied.Reason), IsError: true, Summary: op.notDone + ": " + denied.Reason}
	case errors.Is(err, capabilities.ErrNotExist):
		return Errorf(fmt.Sprintf("%s does not exist", path))
	case errors.Is(err, capabilities.ErrIsDirectory):
		return Errorf(fmt.Sprintf("%s is a directory; list it with bash_command (ls) or search it with grep", path))
	case errors.Is(err, capabilities.ErrNotRegular):
		return Errorf(fmt.Sprintf("%s %s: it is not a regular file (a FIFO, device or socket), which could block forever", path, op.notDone))
	case errors.As(err, &tooLarge):
		size := formatBytes(tooLarge.Size)
		if size == formatBytes(tooLarge.Max) {
			size = fmt.Sprintf("%d bytes", tooLarge.Size)
		}
		return Errorf(fmt.Sprintf("%s %s: it is %s, more than the %s the file tools handle; use bash_command (sed, head, tail) for it", path, op.notDone, size, formatBytes(tooLarge.Max)))
	case errors.Is(err, capabilities.ErrDiskChanged):
		return Errorf(fmt.Sprintf("%s %s: the user has unsaved changes to it in the editor and the file also changed on disk; ask the user to save or reload it (:w or :e!), then try again", path, op.notDone))
	}
	return Errorf(fmt.Sprintf("%s %s: %v", op.verb, path, err))
}

// formatBytes says a size in the unit that reads best (the caps are whole
// MB or KB).
func formatBytes(n int64) string {
	unit := func(v float64, name string) string {
		return strings.TrimSuffix(fmt.Sprintf("%.1f", v), ".0") + " " + name
	}
	switch {
	case n >= 1<<20:
		return unit(float64(n)/(1<<20), "MB")
	case n >= 1<<10:
		return unit(float64(n)/(1<<10), "KB")
	}
	return fmt.Sprintf("%d bytes", n)
}
