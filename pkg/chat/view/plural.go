package view

import "strconv"

// plural is word for one, word+"s" for any other count.
func plural(n int, word string) string { return Word(n, word, word+"s") }

// Word is the word that goes with a count of n: one for 1, many else.
func Word(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count is n and the word that goes with it: "1 message", "2 messages",
// "0 retries". Every count the chat draws goes through it (or plural), so
// none reads "1 messages".
func Count(n int, one, many string) string {
	return strconv.Itoa(n) + " " + Word(n, one, many)
}
