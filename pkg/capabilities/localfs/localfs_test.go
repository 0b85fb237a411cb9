package localfs

import (
	"testing"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/capabilities/capabilitytest"
)

func TestContract(t *testing.T) {
	capabilitytest.FileIO(t, func(t *testing.T) (capabilities.FileIO, string) {
		return New(), t.TempDir()
	})
}
