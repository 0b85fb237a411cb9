// Package memfs is an in-memory capabilities.FileIO for tests of tools and
// decorators.
//
// Paths are slash-separated and absolute ("/" always exists); a relative
// path is an error. Directories are explicit, as on a disk: MkdirAll
// creates them, WriteFile needs its parent to exist and Stat reports them.
// The test helper Put is the exception: it creates the file's missing
// parents, so fixtures are one line each. Files returns a snapshot of
// every file's content for assertions.
//
// Errors follow the contract and localfs's wording ("read /x/y: does not
// exist"). ModTime comes from the wall clock but never moves backwards
// within one FS. Content is copied on the way in and out, so callers may
// reuse their slices. Every method checks its context first; reading
// memory does not block, so Open's reader does not check it again.
package memfs
