package capabilities

import "context"

// Skills are instructions the model loads by name when a task calls for
// them (Agent Skills: a directory holding SKILL.md and the files it
// names). The model reads every skill's name and description up front
// and a skill's body only when it loads it. Safe for concurrent use.
type Skills interface {
	// List returns the skills there are now, sorted by name. It may list
	// directories (the first call does); ctx bounds the wait.
	List(ctx context.Context) []SkillInfo
	// Skill returns the named skill with its instructions.
	Skill(ctx context.Context, name string) (Skill, bool)
}

// SkillInfo is what the model reads of a skill before loading it.
type SkillInfo struct {
	Name, Description string
	// Workspace: the skill is a file of the workspace (repository
	// content, which someone other than the user may have written).
	Workspace bool
}

// Skill is a loaded skill.
type Skill struct {
	SkillInfo
	// Path is its SKILL.md as the user reads it (relative to the
	// workspace, or ~/…); Dir is its directory, absolute: the files the
	// body names are relative to it.
	Path, Dir string
	Body      string
}
