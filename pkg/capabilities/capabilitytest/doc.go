// Package capabilitytest holds contract suites that every implementation
// of a capabilities interface runs from its own tests, so that the local,
// in-memory, buffer-aware (inside Neovim) and Docker implementations
// agree on behaviour, errors included.
//
// A suite is an ordinary function taking *testing.T and a constructor; it
// runs subtests, each with a fresh implementation from the constructor:
//
//	func TestContract(t *testing.T) {
//		capabilitytest.FileIO(t, func(t *testing.T) (capabilities.FileIO, string) {
//			return localfs.New(), t.TempDir()
//		})
//	}
//
// The package imports testing and testify, so only test files import it.
package capabilitytest
