package host

import "github.com/magenta-nvim/magenta/pkg/chat"

// attachments reads the "attachments" of a send event: what the
// message's @-mentions expanded to in Lua (lua/magenta/mentions.lua), a
// list of {label, text}. Entries of another shape are skipped: the
// message itself still goes.
func (e event) attachments() []chat.Attachment {
	list, _ := e.payload["attachments"].([]any)
	var out []chat.Attachment
	for _, v := range list {
		m, ok := v.(map[string]any)
		if !ok {
			continue
		}
		label, _ := m["label"].(string)
		text, _ := m["text"].(string)
		if label == "" || text == "" {
			continue
		}
		out = append(out, chat.Attachment{Label: label, Text: text})
	}
	return out
}
