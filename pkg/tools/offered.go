package tools

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// Offered is the set of tools one request offered the model, by name. A
// model may call another anyway — one it saw offered earlier in the
// conversation, before the environment changed, or one it made up — and
// such a call must not run: the environment may lack what the tool
// needs, and the user was told only the offered tools exist.
type Offered map[string]bool

// OfferedSet returns the names of specs as an Offered set.
func OfferedSet(specs []Spec) Offered {
	out := make(Offered, len(specs))
	for _, s := range specs {
		out[s.Name] = true
	}
	return out
}

func (o Offered) names() []string {
	out := make([]string, 0, len(o))
	for n := range o {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// missing says why an environment lacks a capability, where the model
// can do something about it.
var missing = map[capabilities.Capability]string{
	capabilities.CapLSP:         "no language server runs or is configured for the workspace's files",
	capabilities.CapDiagnostics: "no language server runs or is configured for the workspace's files",
}

// RunOffered runs the named tool when the request offered it (see Run);
// otherwise nothing runs and the model gets an error result naming the
// tool as unavailable.
func (r *Registry) RunOffered(ctx context.Context, name string, call Call, offered Offered) Result {
	if offered[name] {
		return r.Run(ctx, name, call)
	}
	available := strings.Join(offered.names(), ", ")
	if _, known := r.Tool(name); !known {
		return Errorf(fmt.Sprintf("unknown tool %q; the tools available now are: %s", name, available))
	}
	why := ""
	if needs := r.Needs(name); len(needs) > 0 {
		parts := make([]string, len(needs))
		for i, c := range needs {
			parts[i] = string(c)
			if m := missing[c]; m != "" {
				parts[i] += " (" + m + ")"
			}
		}
		why = fmt.Sprintf(": it needs %s, which this environment does not provide now", strings.Join(parts, ", "))
	}
	return Errorf(fmt.Sprintf("tool %s is not available%s. It was not offered with this request, so it did not run. The tools available now are: %s.", name, why, available))
}
