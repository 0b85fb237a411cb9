package config

// ReadHooksProjectFile reports whether the workspace's
// .claude/settings.json and .claude/settings.local.json hooks may be
// read (and run once the user trusts them): the default. setup()'s own
// hooks (Options.Hooks) are checked by pkg/hooks.ParseOption when the
// host attaches, as shell.rules are by bashperm: pkg/hooks imports the
// chat, which imports this package.
func (o Options) ReadHooksProjectFile() bool {
	return o.HooksProjectFile == nil || *o.HooksProjectFile
}
