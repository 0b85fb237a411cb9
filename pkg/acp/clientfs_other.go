//go:build !linux

package acp

import (
	"errors"
	"os"
)

// Off Linux the path cannot be watched (no inotify): files stay on the
// disk FileIO.

func nodeOf(os.FileInfo) (nodeState, bool) { return nodeState{}, false }

type pathWatch struct{}

func watchPath(string) (*pathWatch, error) { return nil, errors.ErrUnsupported }

func (*pathWatch) changes() (dirs, file bool) { return true, true }

func (*pathWatch) close() {}
