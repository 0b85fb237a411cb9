package chat

import (
	"path"
	"regexp"
	"strings"
	"unicode/utf8"
)

// fallbackTitleMax is the most characters a title made from the first
// message has: about what the thread list and the header show of a title
// the model gives.
const fallbackTitleMax = 50

// mentionWithPath is an @-mention with an argument: @file:path,
// @file:"a path", @diff:path.
var mentionWithPath = regexp.MustCompile(`@([A-Za-z]+):("[^"]*"|\S+)`)

// fallbackTitle is the title of a thread until the model gives one
// (thread_title): the first words of the first message, on one line,
// cut at a word boundary to fallbackTitleMax characters ("…" marks a
// cut). A mention keeps its name and the file's base name, so
// "@file:pkg/chat/turn.go" reads "@file:turn.go". "" for a blank text.
func fallbackTitle(text string) string {
	text = mentionWithPath.ReplaceAllStringFunc(text, func(m string) string {
		sub := mentionWithPath.FindStringSubmatch(m)
		arg, quoted := strings.CutPrefix(sub[2], `"`)
		base := path.Base(strings.TrimSuffix(arg, `"`))
		if quoted {
			base = `"` + base + `"`
		}
		return "@" + sub[1] + ":" + base
	})
	words := strings.Fields(text)
	title := strings.Join(words, " ")
	if utf8.RuneCountInString(title) <= fallbackTitleMax {
		return title
	}
	// Cut: the words that fit with the "…".
	var b strings.Builder
	n := 0
	for _, w := range words {
		wn := utf8.RuneCountInString(w)
		if b.Len() > 0 {
			wn++
		}
		if n+wn > fallbackTitleMax-1 {
			break
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
		n += wn
	}
	if b.Len() == 0 { // one word longer than a title: cut inside it
		r := []rune(words[0])
		b.WriteString(string(r[:fallbackTitleMax-1]))
	}
	return b.String() + "…"
}

// titleFromFirstMessage gives a thread without a title the fallback
// title of its first message (a sub-agent's: of the prompt its parent
// gave, without the context files read for it). The model's title
// replaces it when it comes.
func (t *Thread) titleFromFirstMessage(text string) {
	if t.title != "" {
		return
	}
	if s := t.agents.self; s != nil {
		text = s.prompt
	}
	t.title = fallbackTitle(text)
	t.dirty = true
}
