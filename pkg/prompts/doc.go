// Package prompts finds and parses the prompt text users keep in files:
// skills, slash commands and sub-agent types, in the formats Claude Code
// reads, so a repository's or a user's existing files work unchanged.
//
// # What is read, from where
//
//	skills    <dir>/skills/<name>/SKILL.md  front matter name, description;
//	          the body is the instructions, the files beside it what they name
//	commands  <dir>/commands/**/*.md        /name is the file's name (a
//	          subdirectory is a namespace shown beside it, as Claude Code
//	          does: commands/frontend/review.md is /review, "project:frontend");
//	          front matter optional: description, argument-hint, model
//	agents    <dir>/agents/**/*.md          front matter name, description,
//	          tools (a YAML list or one comma list), model; the body is the
//	          system prompt
//
// <dir> is, in order of precedence: $XDG_CONFIG_HOME/magenta (else
// ~/.config/magenta), ~/.claude, then the workspace's .magenta and
// .claude. Front matter is YAML (go.yaml.in/yaml/v3, pinned in go.mod);
// where YAML refuses it, plain "key: value" lines are read instead,
// because Claude Code's own examples (argument-hint: [pr] [priority]) are
// not valid YAML.
//
// # Duplicates: which one wins
//
// The first directory in the order above wins, for all three kinds: the
// user's files win over the workspace's, magenta's own directory over
// Claude Code's, without a warning (a user copy of a repository's skill
// is normal). This differs from Claude Code for agents (its project
// agents win over the user's) on purpose: a cloned repository must not
// replace a prompt the user wrote under the same name. Two definitions of
// one name in the same directory (commands/a/x.md and commands/b/x.md)
// keep the first by path and warn. For agents, setup()'s
// subagents.agents and the built-in types (subagent, explore, fast) win
// over every file (a file with a built-in name is skipped with a
// warning); see pkg/chat/subagents_files.go.
//
// # Bad input
//
// A file is skipped with a warning naming it (told once through the
// library's warn function, shown by the host as a notification) when its
// front matter is malformed or missing where required (skills, agents),
// when a required field (description; an agent's name) is missing, when
// a name is not one (skills: the Agent Skills rule, 1–64 lowercase
// letters, digits and single hyphens; a skill without a name takes its
// directory's), when it is not UTF-8, when it is over MaxFileBytes (the
// size is checked before reading; the file is not read), or when it is
// not a regular file (a FIFO is never opened). A description over
// MaxDescriptionRunes is cut with a warning. A directory contributes at
// most MaxEntries files and is walked at most maxDepth deep.
//
// # Workspace files are repository content
//
// Nothing in these files runs: a command's "!`cmd`" lines stay text, its
// @file names stay names, hooks and allowed-tools are ignored. But their
// text is prompt text someone else may have written, so wherever the
// model sees a workspace definition it is told so: the skill tool marks
// workspace skills "(workspace)" and its result says the skill is
// repository content, an expanded command says which file it came from
// and that it is the workspace's, and a workspace agent's system prompt
// starts by saying where its instructions come from and that they give no
// permissions. A workspace directory that leads out of the workspace
// through a symbolic link (.claude -> ~/elsewhere), or a file or skill
// directory that does, is not read; the user's directories may be links
// (dotfiles).
//
// # Skills: the listing goes in the skill tool's description
//
// The names and descriptions go in the skill tool's description, not in
// the system prompt: the listing and the only way to use it appear and
// disappear together (a thread whose environment has no skills, such as a
// Docker container, which cannot read the host's files, or a sub-agent
// type whose tools leave skill out, sees neither), the system prompt stays
// the same for every thread, and the list is taken for each request, so a
// skill added while a thread runs is offered from its next request on
// (the cost for prompt caching is the same either way: both come before
// the messages). The body is loaded only by the tool, with the skill's
// directory, so the files the body names are read with get_file.
//
// Readable without asking: the user's own skill directories
// (~/.config/magenta/skills, ~/.claude/skills) are added to the file
// guard's readable roots, like the command-log root: they hold files the
// user installed to be read by an agent. Secrets below them still ask,
// writes still ask, and a root that is itself a symbolic link grants
// nothing (the guard's rule), so reads there ask. A workspace skill
// directory is inside the workspace, readable like any file of it — it is
// repository content, which the tool's result says.
//
// # Laziness
//
// New reads nothing, so the first :Magenta toggle is unchanged however
// many files there are (the host test TestSlashCommandCompletion checks
// Stats after the toggle with 50 skills, 50 commands and 10 agents).
// The first need — the first request (the skill tool and spawn_subagents
// list what there is), a /command sent, or the input's first completion
// of "/" — lists the directories on a worker goroutine, which the caller
// waits for at most LoadWait. The listing is cached; after
// DefaultRecheck a Load looks again (directory listings and a stat of
// every file) and reads only files whose size or time changed.
// BenchmarkDiscovery measures the three cases.
package prompts
