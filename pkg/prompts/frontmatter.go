package prompts

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Document is a Markdown file split into its YAML front matter and body.
type Document struct {
	// Fields are the front matter's top-level keys; nil when the file
	// has none.
	Fields map[string]any
	// HasFrontMatter: the file starts with a "---" line closed by another.
	HasFrontMatter bool
	// Body is what follows the front matter, without its leading blank
	// lines and trailing space.
	Body string
}

// Errors a file is skipped for; Parse wraps them with details.
var (
	ErrNotUTF8     = errors.New("the file is not UTF-8 text")
	ErrUnclosed    = errors.New(`the front matter opened by "---" is never closed by a "---" line`)
	ErrFrontMatter = errors.New("the front matter is not valid YAML")
)

// Parse splits a Markdown file into front matter and body. The text must
// be UTF-8 (a byte-order mark is dropped, CRLF read as LF). Front matter
// is YAML, a mapping; when YAML refuses it, the plain "key: value" lines
// Claude Code's files often hold (argument-hint: [file] [line] is not
// valid YAML) are read one per line instead, and only when that fails
// too is the front matter malformed.
func Parse(data []byte) (doc Document, err error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) {
		return Document{}, ErrNotUTF8
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	front, body, has, err := split(text)
	if err != nil {
		return Document{}, err
	}
	doc = Document{HasFrontMatter: has, Body: strings.TrimSpace(body)}
	if !has {
		return doc, nil
	}
	doc.Fields, err = parseFields(front)
	return doc, err
}

// split separates the front matter (between a first line "---" and the
// next line "---" or "...") from the body. A file that does not start
// with "---" has no front matter.
func split(text string) (front, body string, has bool, err error) {
	first, rest, found := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t") != "---" {
		return "", text, false, nil
	}
	if !found {
		return "", "", true, ErrUnclosed
	}
	for off := 0; off <= len(rest); {
		line, _, more := strings.Cut(rest[off:], "\n")
		if l := strings.TrimRight(line, " \t"); l == "---" || l == "..." {
			end := min(off+len(line)+1, len(rest))
			return rest[:off], rest[end:], true, nil
		}
		if !more {
			break
		}
		off += len(line) + 1
	}
	return "", "", true, ErrUnclosed
}

// parseFields reads the front matter as YAML, then as plain lines.
func parseFields(front string) (map[string]any, error) {
	fields, yerr := parseYAML(front)
	if yerr == nil {
		return fields, nil
	}
	if fields, ok := parsePlain(front); ok {
		return fields, nil
	}
	return nil, fmt.Errorf("%w (%v)", ErrFrontMatter, yerr)
}

// parseYAML decodes a YAML mapping; the YAML library's panics (none is
// known in this version, but the input is anyone's) are errors.
func parseYAML(front string) (fields map[string]any, err error) {
	defer func() {
		if p := recover(); p != nil {
			fields, err = nil, fmt.Errorf("the YAML parser failed: %v", p)
		}
	}()
	var node yaml.Node
	if err := yaml.Unmarshal([]byte(front), &node); err != nil {
		return nil, trimYAMLError(err)
	}
	if node.Kind == 0 { // empty front matter
		return map[string]any{}, nil
	}
	if node.Kind != yaml.DocumentNode || len(node.Content) != 1 || node.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("it is not a mapping of keys to values")
	}
	fields = map[string]any{}
	if err := node.Content[0].Decode(&fields); err != nil {
		return nil, trimYAMLError(err)
	}
	return fields, nil
}

// yamlLine is the line number in a YAML error.
// Regular expressions are compiled on first use (sync.OnceValue), not
// at package init: every host start, and so the first toggle, would
// pay for them.
var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bline (\d+)\b`) })

// trimYAMLError drops the library's prefix and counts lines from the
// top of the file (the front matter starts on its second line).
func trimYAMLError(err error) error {
	msg := yamlLine().ReplaceAllStringFunc(strings.TrimPrefix(err.Error(), "yaml: "), func(m string) string {
		n, _ := strconv.Atoi(strings.TrimPrefix(m, "line "))
		return "line " + strconv.Itoa(n+1)
	})
	return errors.New(msg)
}

var (
	plainKey  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_-]*)[ \t]*:(?:[ \t]+(.*))?$`) })
	plainItem = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[ \t]+-[ \t]+(.+)$`) })
)

// parsePlain reads "key: value" lines (values taken as written, one
// pair of matching quotes removed) and "  - item" lines under a key with
// no value; blank lines and comments are skipped. Anything else fails.
func parsePlain(front string) (map[string]any, bool) {
	fields := map[string]any{}
	last := ""
	for _, line := range strings.Split(front, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if m := plainKey().FindStringSubmatch(line); m != nil {
			if _, dup := fields[m[1]]; dup {
				return nil, false
			}
			last = m[1]
			fields[last] = unquote(strings.TrimSpace(m[2]))
			continue
		}
		m := plainItem().FindStringSubmatch(line)
		if m == nil || last == "" {
			return nil, false
		}
		switch v := fields[last].(type) {
		case string:
			if v != "" {
				return nil, false
			}
			fields[last] = []any{unquote(strings.TrimSpace(m[1]))}
		case []any:
			fields[last] = append(v, unquote(strings.TrimSpace(m[1])))
		}
	}
	return fields, true
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// String returns the field key as text: a string, or a number or boolean
// as written; "" when absent. A list or mapping is an error.
func (d Document) String(key string) (string, error) {
	switch v := d.Fields[key].(type) {
	case nil:
		return "", nil
	case string:
		return strings.TrimSpace(v), nil
	case int, int64, uint64, float64, bool:
		return fmt.Sprint(v), nil
	default:
		return "", fmt.Errorf("%s must be text, not %s", key, kindOf(v))
	}
}

// List returns the field key as a list of names: a YAML list of texts,
// or one text of names separated by commas. Empty names are dropped.
func (d Document) List(key string) ([]string, error) {
	var parts []string
	switch v := d.Fields[key].(type) {
	case nil:
		return nil, nil
	case string:
		parts = strings.Split(v, ",")
	case []any:
		for i, item := range v {
			s, ok := item.(string)
			if !ok {
				return nil, fmt.Errorf("%s[%d] must be a name, not %s", key, i+1, kindOf(item))
			}
			parts = append(parts, s)
		}
	default:
		return nil, fmt.Errorf("%s must be a list of names or one text of names separated by commas, not %s", key, kindOf(v))
	}
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out, nil
}

func kindOf(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	case map[string]any, map[any]any:
		return "a mapping"
	}
	return fmt.Sprintf("%T", v)
}
