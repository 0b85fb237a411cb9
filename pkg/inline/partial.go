package inline

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// partialText returns what has streamed so far of the "text" field of a
// replace_selection input that is still arriving as JSON fragments
// (`{"text": "func a() {\n\tret`), and whether the field has begun. An
// escape cut off at the end is left out until the rest arrives.
func partialText(raw string) (string, bool) {
	i := strings.Index(raw, `"text"`)
	if i < 0 {
		return "", false
	}
	rest := strings.TrimLeft(raw[i+len(`"text"`):], " \t\r\n")
	if !strings.HasPrefix(rest, ":") {
		return "", false
	}
	rest = strings.TrimLeft(rest[1:], " \t\r\n")
	if !strings.HasPrefix(rest, `"`) {
		return "", false
	}
	body := rest[1:]
	end := len(body)
	for j := 0; j < len(body); j++ {
		if body[j] == '\\' {
			j++
			continue
		}
		if body[j] == '"' {
			end = j
			break
		}
	}
	body = body[:end]
	body = body[:len(body)-cutEscape(body)]
	body = body[:len(body)-cutRune(body)]
	var s string
	if err := json.Unmarshal([]byte(`"`+body+`"`), &s); err != nil {
		return "", false
	}
	return s, true
}

// cutRune returns how many bytes at the end of body are a UTF-8
// sequence not yet complete (a fragment may end inside one).
func cutRune(body string) int {
	for back := 1; back <= utf8.UTFMax-1 && back <= len(body); back++ {
		if utf8.RuneStart(body[len(body)-back]) {
			if !utf8.FullRuneInString(body[len(body)-back:]) {
				return back
			}
			return 0
		}
	}
	return 0
}

// cutEscape returns how many bytes at the end of body are an escape not
// yet complete (a lone backslash, or \u with fewer than four digits).
func cutEscape(body string) int {
	for back := 1; back <= 5 && back <= len(body); back++ {
		tail := body[len(body)-back:]
		if !strings.HasPrefix(tail, `\`) {
			continue
		}
		// Count the backslashes before this one: an even run means tail
		// starts an escape.
		run := 0
		for k := len(body) - back - 1; k >= 0 && body[k] == '\\'; k-- {
			run++
		}
		if run%2 == 1 {
			continue
		}
		if back == 1 || (tail[1] == 'u' && back < 6) {
			return back
		}
		return 0
	}
	return 0
}
