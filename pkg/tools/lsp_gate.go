package tools

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// Offerer is implemented by tools that are offered only when the
// environment can serve them, beyond the capabilities they need: an LSP
// tool whose request no server supports is not offered.
type Offerer interface {
	OfferedIn(env *capabilities.Environment) bool
}

// lspTool is an LSP tool offered only while a server can answer its
// method: a running server advertises it, or — unless the tool has no
// file to start a server with — one the configuration starts for the
// workspace's files has not started yet (what it supports is known only
// once it runs; the call starts it).
type lspTool struct {
	Tool
	name, method string
	needsRunning bool
}

func newLSPTool(t Tool, name, method string, needsRunning bool) *lspTool {
	return &lspTool{Tool: t, name: name, method: method, needsRunning: needsRunning}
}

// Name implements named (the spec is built on first use, not here).
func (t *lspTool) Name() string { return t.name }

// OfferedIn implements Offerer.
func (t *lspTool) OfferedIn(env *capabilities.Environment) bool {
	if env == nil || env.LSP == nil {
		return false
	}
	switch env.LSP.Supports(t.method) {
	case capabilities.LSPSupported:
		return true
	case capabilities.LSPMaybe:
		return !t.needsRunning
	}
	return false
}

// Describe implements Describer: what the call is about.
func (t *lspTool) Describe(input []byte) (string, string) {
	var p struct {
		FilePath string `json:"filePath"`
		Symbol   string `json:"symbol"`
		NewName  string `json:"newName"`
		Query    string `json:"query"`
		Index    int    `json:"index"`
	}
	if json.Unmarshal(input, &p) != nil {
		return "", ""
	}
	var parts []string
	switch {
	case p.Symbol != "" && p.NewName != "":
		parts = append(parts, p.Symbol+" → "+p.NewName)
	case p.Symbol != "":
		parts = append(parts, p.Symbol)
	case p.Query != "":
		parts = append(parts, fmt.Sprintf("%q", p.Query))
	case p.Index > 0:
		parts = append(parts, fmt.Sprintf("#%d", p.Index))
	}
	if p.FilePath != "" {
		parts = append(parts, p.FilePath)
	}
	if len(parts) == 2 {
		return parts[0] + " in " + parts[1], ""
	}
	return strings.Join(parts, ""), ""
}
