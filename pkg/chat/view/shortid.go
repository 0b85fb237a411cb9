package view

import "strings"

// MinShortID is the shortest id prefix the thread list shows. Thread ids
// are UUIDv7, whose first characters encode the creation time, so threads
// made within about a minute share their first 8 characters; ShortIDs
// lengthens the prefix until each one is unique.
const MinShortID = 8

// ShortIDs returns, for each id, the shortest prefix of at least
// MinShortID characters that no other id in ids starts with (the whole
// id when one id is a prefix of another).
func ShortIDs(ids []string) map[string]string {
	out := make(map[string]string, len(ids))
	for _, id := range ids {
		n := min(MinShortID, len(id))
		for ; n < len(id); n++ {
			if !sharedPrefix(ids, id, id[:n]) {
				break
			}
		}
		// A prefix never ends on the UUID's dash: "0193a1b2-" reads as
		// a typo when pasted.
		for n < len(id) && strings.HasSuffix(id[:n], "-") {
			n++
		}
		out[id] = id[:n]
	}
	return out
}

func sharedPrefix(ids []string, self, prefix string) bool {
	for _, other := range ids {
		if other != self && strings.HasPrefix(other, prefix) {
			return true
		}
	}
	return false
}
