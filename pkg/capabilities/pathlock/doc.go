// Package pathlock serialises changes of one file path: a Table hands out
// one mutex per path, created on first use and dropped when its last
// holder or waiter leaves, so the table stays as small as the set of
// paths being changed right now.
//
// FileIO implementations lock a path around read-modify-write (Update)
// and around WriteFile, so that two tool calls of one reply editing the
// same file both land instead of one silently overwriting the other.
package pathlock
