package host

import "github.com/magenta-nvim/magenta/pkg/chat"

// attachments are the "attachments" of a send event: what the message's
// @-mentions expanded to in Lua (lua/magenta/mentions.lua), a list of
// {label, text}, with image = id for an image the "image" request read
// (images.go). Entries of another shape are skipped: the message itself
// still goes.
type attachments []attachment

type attachment struct {
	chat.Attachment
	imageID int
}

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
		id, _ := payloadInt(m["image"])
		*a = append(*a, attachment{Attachment: chat.Attachment{Label: label, Text: text}, imageID: id})
	}
	return nil
}
