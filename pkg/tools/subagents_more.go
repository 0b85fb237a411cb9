package tools

import (
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// SpawnSubagentsWith is SpawnSubagents whose description also lists
// more()'s types, asked at every request that offers the tool: types
// defined in files, which are read on first need, not when the registry
// is built. Spec lists only types.
func SpawnSubagentsWith(types []AgentType, more func() []AgentType, maxConcurrent int) Tool {
	return NewSpawnSubagents(SpawnConfig{Types: types, More: more, MaxConcurrent: maxConcurrent})
}

type spawnWith struct {
	Tool
	config SpawnConfig
}

// Name implements named (the spec is built on first use, not here).
func (*spawnWith) Name() string { return "spawn_subagents" }

// SpecIn implements SpecInEnv.
func (s *spawnWith) SpecIn(*capabilities.Environment) Spec {
	spec := s.Spec()
	extra := s.config.More()
	if len(extra) == 0 {
		return spec
	}
	all := append(append([]AgentType(nil), s.config.Types...), extra...)
	desc, err := describe(spawnSubagentsDescription, spawnData(s.config, all))
	if err != nil {
		return spec // the static description built, so this cannot fail
	}
	spec.Description = strings.TrimSpace(desc)
	return spec
}
