package redteam_test

import "testing"

// TestAttacks runs issue 23's attacks, one subtest each, every one in a
// world of its own. Each asserts what the fixed product must do; see the
// attack's function for the details.
func TestAttacks(t *testing.T) {
	t.Run("1-planted-git-code", attackPlantedGitCode)
	t.Run("2-persistence", attackPersistence)
	t.Run("3-home-credentials", attackHomeCredentials)
	t.Run("4-environment", attackEnvironment)
	t.Run("5-history", attackHistory)
	t.Run("6-unmask-by-rename", attackUnmaskByRename)
	t.Run("7-rg-dangling-git", attackRgDanglingGit)
	t.Run("8-run-sockets", attackRunSockets)
	t.Run("9-secret-name-gaps", attackSecretNameGaps)
	t.Run("10-destructive", attackDestructive)
}
