// Package proctest holds process checks shared by tests that start real
// processes and must show that none outlives what should end it.
package proctest
