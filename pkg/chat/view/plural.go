package view

import "strconv"

// plural is word for one, word+"s" for any other count.
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// Count is n and the word that goes with it: "1 message", "2 messages",
// "0 retries". Every count the chat draws goes through it (or plural), so
// none reads "1 messages".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
