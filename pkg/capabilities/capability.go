package capabilities

import "sort"

// Capability names something an environment can provide and a tool can
// need. The names are the ones the docs and logs use.
type Capability string

const (
	CapFileIO      Capability = "file-io"
	CapShell       Capability = "shell"
	CapSearch      Capability = "search"
	CapWeb         Capability = "web"
	CapWebSearch   Capability = "web-search" // a configured web search back end
	CapLSP         Capability = "lsp"
	CapDiagnostics Capability = "diagnostics"
	// CapThreads is spawning and waiting for sub-agents.
	CapThreads Capability = "threads"
)

// Has reports whether the environment provides c now. LSP and
// diagnostics depend on whether a language server runs or is configured
// for the workspace (LSPAvailable), so the answer may change between two
// requests of one thread: tools that need them appear as soon as a
// server starts.
func (e *Environment) Has(c Capability) bool {
	switch c {
	case CapFileIO:
		return e.Files != nil
	case CapShell:
		return e.Shell != nil
	case CapSearch:
		return e.Searcher != nil
	case CapWeb:
		return e.Fetcher != nil
	case CapWebSearch:
		return e.WebSearcher != nil
	case CapLSP:
		return e.LSP != nil && e.lspAvailable()
	case CapDiagnostics:
		return e.Diagnostics != nil && e.lspAvailable()
	case CapThreads:
		return e.Threads
	}
	return false
}

func (e *Environment) lspAvailable() bool {
	if e.LSPAvailable == nil {
		return false
	}
	return e.LSPAvailable()
}

// Capabilities lists what the environment provides now, sorted (for the
// header, logs and :checkhealth).
func (e *Environment) Capabilities() []Capability {
	var out []Capability
	for _, c := range []Capability{CapFileIO, CapShell, CapSearch, CapWeb, CapWebSearch, CapLSP, CapDiagnostics, CapThreads} {
		if e.Has(c) {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
