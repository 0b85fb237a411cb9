// Package checkpoint keeps a private, content-addressed store of
// workspace snapshots, so that what an agent changed can be listed
// (Changes) and rewound (Plan, then ApplyToDisk).
//
// # How
//
// A Store is a git repository of its own — GIT_DIR <Dir>/git,
// GIT_INDEX_FILE <Dir>/index — whose work tree is the workspace. Git
// plumbing gives, for free and well tested: content addressing (a file
// unchanged across a hundred checkpoints is stored once), a stat-cached
// index (a snapshot of an unchanged workspace hashes nothing; after an
// edit only the changed files are read), .gitignore handling identical
// to git's, and compact trees diffed in C. A snapshot runs `git ls-files
// -o` and `git diff-files` (untracked and changed files only), checks
// those few in Go (size cap, file type, readability), stages them with
// `git update-index` (into one pack when there are many), applies the
// overlay of modified editor buffers on a copy of the index (buffers win
// over the disk), and writes a tree and a commit whose message is the
// checkpoint's metadata (group, label, time, skipped paths) as one line
// of JSON. A ref refs/magenta/<group>/<seq> keeps it; List reads the
// refs, so checkpoints survive restarts. It works the same whether or
// not the workspace is a git repository.
//
// # The user's repository is never touched
//
// Git finds the store through GIT_DIR, never by searching, so a
// workspace's .git (directory or file) is not read, and git's walk skips
// every entry named .git. No command writes to the work tree: the store
// only reads it (ApplyToDisk, plain Go, is the one writer). The user's
// index, HEAD, refs, stash, config and hooks are byte-identical before
// and after (tested).
//
// # Threat model
//
// The workspace is not trusted: a cloned project may plant
// .gitattributes, .gitmodules, a .git file pointing elsewhere, or
// .git/config with filter commands. Every git process gets an
// environment built from nothing (no inherited GIT_* variable: a GIT_DIR
// or GIT_CONFIG_PARAMETERS from the user's shell cannot redirect or
// reconfigure it; HOME and XDG_CONFIG_HOME point into the store), no
// system or global config, no system attributes, and command-line config
// (see hardening in git.go) disabling hooks, fsmonitor, CRLF conversion
// and the user's excludes and attributes files. Filters and textconv
// need commands defined in config, which only we write; on top,
// <git>/info/attributes unsets filter, text, eol, ident and
// working-tree-encoding for every path, so bytes are stored as they are.
// FIFOs, sockets and devices are recognised by mode, never opened. Git
// itself opens every .gitignore and .gitattributes it meets, and opening
// a FIFO waits for a writer: a git command running for over a second
// makes the store look for such a file, and one found ends the command
// with an error naming it. Every git process is also killed (its whole
// process group) when the caller's context ends.
// Git decides whether a subdirectory with its own .git is a nested
// repository by reading that .git (and the HEAD it points to); it runs
// nothing there, and the subdirectory is skipped.
//
// Snapshots hold whatever the workspace holds, secrets included, so
// they get the care thread logs get: the store directory is 0700 and git
// writes every file in it 0600 (core.sharedRepository=0600). Deleting a
// thread's checkpoints (DeleteGroup) deletes the loose objects only they
// used; Prune also repacks, dropping packed ones.
//
// # What is not captured
//
//   - paths ignored by the workspace's .gitignore files, DefaultExcludes
//     and Options.Exclude (written to <git>/info/exclude; changing them
//     drops the index so the next snapshot applies them);
//   - the store's own directory, when it lies inside the workspace;
//   - files over MaxFileSize, unreadable files, FIFOs, sockets and
//     devices, and nested repositories: named in Checkpoint.Skipped.
//     Special files are found by reading the directories that hold
//     captured files; one in a directory holding nothing else captured
//     is not named (it is not captured either);
//   - empty directories (git stores files).
//
// Plan and Changes leave skipped paths alone: restoring never deletes a
// file the checkpoint could not see, nor one ignored now. It does delete
// a file created since the checkpoint that was ignored then and is not
// now (the exclude rules changed in between): the plan's preview shows
// it.
//
// # Limits
//
// A workspace over MaxFiles (100 000) or MaxBytes (2 GiB) captured
// fails with *TooLargeError, after git's walk and before anything is
// hashed; files over MaxFileSize (10 MiB) are skipped. A write error
// while staging (a full disk) still yields a checkpoint, marked
// Incomplete, whose unwritten files are in Skipped. Plan holds the
// contents it restores in memory (each at most MaxFileSize); its
// Preview is cut at MaxPreview. On a 2-core machine, with 10 000 files
// (200 MB): the first snapshot takes a few seconds, later ones tens of
// milliseconds (see bench_test.go).
//
// # Concurrency
//
// A Store is safe for concurrent use; its operations are serialised (one
// git index), and a file lock serialises processes sharing the store
// directory. A cancelled context kills the running git process group.
package checkpoint
