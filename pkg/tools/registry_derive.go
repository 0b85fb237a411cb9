package tools

import "sort"

// With returns a registry holding r's tools and ts; a tool of ts replaces
// one of r with the same name. r is not changed.
func (r *Registry) With(ts ...Tool) *Registry {
	out := &Registry{tools: make(map[string]Tool, len(r.tools)+len(ts)), providers: r.providers}
	for name, t := range r.tools {
		out.tools[name] = t
	}
	for _, t := range ts {
		out.tools[toolName(t)] = t
	}
	return out
}

// Only returns a registry of r's tools named in names, and the names r
// does not have (sorted), so a caller can report a typo. r's providers
// stay (a sub-agent keeps the MCP servers' tools).
func (r *Registry) Only(names []string) (*Registry, []string) {
	out := &Registry{tools: make(map[string]Tool, len(names)), providers: r.providers}
	var missing []string
	for _, name := range names {
		if t, ok := r.tools[name]; ok {
			out.tools[name] = t
		} else {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	return out, missing
}
