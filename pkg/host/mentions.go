package host

import "github.com/magenta-nvim/magenta/pkg/chat"

// attachments are the "attachments" of a send event: what the message's
// @-mentions expanded to in Lua (lua/magenta/mentions.lua), a list of
// {label, text}. Entries of another shape are skipped: the message
// itself still goes.
type attachments []chat.Attachment

func (a *attachments) decodePayload(v any) error {
	list, ok := v.([]any)
	if !ok {
		return wrongType("a list", v)
	}
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
		*a = append(*a, chat.Attachment{Label: label, Text: text})
	}
	return nil
}
