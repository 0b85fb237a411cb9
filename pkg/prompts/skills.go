package prompts

import (
	"context"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// Skills returns the library's skills as an environment's capability.
func (l *Library) Skills() capabilities.Skills { return skillSource{l} }

type skillSource struct{ l *Library }

func (s skillSource) List(ctx context.Context) []capabilities.SkillInfo {
	set := s.l.Load(ctx)
	out := make([]capabilities.SkillInfo, len(set.Skills))
	for i, sk := range set.Skills {
		out[i] = sk.info()
	}
	return out
}

func (s skillSource) Skill(ctx context.Context, name string) (capabilities.Skill, bool) {
	sk, ok := s.l.Load(ctx).Skill(name)
	if !ok {
		return capabilities.Skill{}, false
	}
	return capabilities.Skill{SkillInfo: sk.info(), Path: sk.Shown, Dir: sk.Dir, Body: sk.Body}, true
}

func (sk Skill) info() capabilities.SkillInfo {
	return capabilities.SkillInfo{Name: sk.Name, Description: sk.Description, Workspace: sk.Scope == Workspace}
}
