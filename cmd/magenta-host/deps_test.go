package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestHostLinksNoMethodByNameReflection: packages that call methods by
// a name known only at run time (text/template, html/template) make the
// linker keep every exported method of every reachable type — with the
// provider SDKs that was 16 MB of binary and ~4 MB of resident memory at
// the first toggle. Tool descriptions use tools.describe instead.
func TestHostLinksNoMethodByNameReflection(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == "text/template" || pkg == "html/template" {
			t.Errorf("the host links %s; find who imports it with `go list -deps -f '{{.ImportPath}}: {{.Imports}}' ./cmd/magenta-host`", pkg)
		}
	}
}

// TestHostLinksNoProviderSDK: the model SDKs run in the provider process
// (package remote); linked into the host they cost ~8 MiB resident at the
// first toggle (BenchmarkHostMemoryAfterFirstToggle).
func TestHostLinksNoProviderSDK(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, sdk := range []string{"github.com/anthropics/anthropic-sdk-go", "github.com/openai/openai-go", "github.com/magenta-nvim/magenta/pkg/provider/backend"} {
			if strings.HasPrefix(pkg, sdk) {
				t.Errorf("the host links %s; it belongs in cmd/magenta-provider", pkg)
			}
		}
	}
}

// TestHostLinksNoStartupHeavyLibraries: libraries whose package
// initialisers run on every host start — before the first toggle's frame
// — run in the processes that need them: the MCP SDK (encoding/gob,
// OAuth) in the MCP gateway, HTML conversion (golang.org/x/net/html's
// entity table) in the provider process.
func TestHostLinksNoStartupHeavyLibraries(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	heavy := map[string]string{
		"github.com/modelcontextprotocol/go-sdk":       "cmd/magenta-mcp (pkg/mcp/gateway)",
		"encoding/gob":                                 "cmd/magenta-mcp (pkg/mcp/gateway)",
		"golang.org/x/net/html":                        "cmd/magenta-provider (pkg/htmlconv)",
		"github.com/JohannesKaufmann/html-to-markdown": "cmd/magenta-provider (pkg/htmlconv)",
	}
	for _, pkg := range strings.Fields(string(out)) {
		for prefix, home := range heavy {
			if strings.HasPrefix(pkg, prefix) {
				t.Errorf("the host links %s; it belongs in %s", pkg, home)
			}
		}
	}
}
