package tools

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/guard"
	"github.com/magenta-nvim/magenta/pkg/capabilities/memfs"
)

type fixedDiagnostics struct{ items []capabilities.Diagnostic }

func (f fixedDiagnostics) Diagnostics(context.Context, string) (capabilities.Diagnostics, error) {
	return capabilities.Diagnostics{Items: f.items}, nil
}

// The diagnostics of every open buffer pass the read check without
// asking: a secret the user has open, or a file outside the workspace,
// is left out and named, and no question is drawn (issue 22, finding 5:
// a spell checker's words about ~/.ssh/id_rsa).
func TestDiagnosticsOfAllBuffersLeaveOutWhatWouldAsk(t *testing.T) {
	broker := approval.NewBroker(nil)
	files := guard.NewFileIO(memfs.New(), guard.FileOptions{Workspace: "/ws", Broker: broker, Remembered: guard.NewRemembered()})
	env := &capabilities.Environment{Cwd: "/ws", Files: files, Diagnostics: fixedDiagnostics{[]capabilities.Diagnostic{
		{Path: "/ws/main.go", Line: 2, Severity: "error", Message: "undefined: x"},
		{Path: "/ws/.env", Line: 0, Severity: "info", Message: "Unknown word: hunter2"},
		{Path: "/home/u/.ssh/id_rsa", Line: 1, Severity: "info", Message: "Unknown word: MIIEvQIBADANBgkq"},
	}}}
	res := runDiagnostics(context.Background(), Call{Env: env}, DiagnosticsParams{})
	assert.Contains(t, res.Text, "undefined: x")
	assert.NotContains(t, res.Text, "hunter2")
	assert.NotContains(t, res.Text, "MIIEvQIBADANBgkq")
	assert.Contains(t, res.Text, "Left out: the diagnostics of 2 open file(s)")
	assert.Empty(t, broker.Pending(""), "nothing asks for buffers the model did not name")
}
