package guard

import (
	"testing"

	"github.com/magenta-nvim/magenta/pkg/approval"
	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/capabilitytest"
	"github.com/magenta-nvim/magenta/pkg/capabilities/localfs"
)

// The guard over the disk keeps the FileIO contract for paths in the
// workspace, where every write is confined beneath the workspace's
// directory handle: the whole suite runs through that code path.
func TestContractInTheWorkspace(t *testing.T) {
	capabilitytest.FileIO(t, func(t *testing.T) (capabilities.FileIO, string) {
		ws := realDir(t)
		return NewFileIO(localfs.New(), FileOptions{Workspace: ws, Broker: approval.NewBroker(nil), Remembered: NewRemembered()}), ws
	})
}
