// Package localenv builds the local environment of a thread — the
// machine the front end runs on — once, for every front end: the Neovim
// host (pkg/host) and the headless `magenta-host run` (pkg/headless).
//
// New assembles the real shell (localshell under the sandbox's
// BwrapConfiner), ripgrep and the HTTP fetcher, each behind its
// permission decorator (pkg/capabilities/guard) whose questions go to
// the edge's approval.Broker; tool artifacts beside the command logs;
// the skills from files; and the files on disk behind guard.FileIO.
// What only an editor has is plugged in by the caller: Options.Files
// wraps the disk FileIO (Neovim's buffer-aware nvimbuf), and the caller
// sets the language-server fields and Ask on the returned environment.
//
// Probe detects bubblewrap once in the background and answers whether
// commands can be confined now (the guard's Sandbox), the confiner's
// status, and the header line; SandboxPolicy is the one sandbox.Policy a
// workspace's commands, the checker's Writable/Readable and hooks share.
// BashChecker builds the command checker from the options.
package localenv
