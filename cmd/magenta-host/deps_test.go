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
