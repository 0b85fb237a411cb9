package chat

import (
	"fmt"
	"runtime"
	"strings"
)

// SystemPrompt is magenta's own system prompt for a workspace, followed
// by the user's addition from the options.
func SystemPrompt(cwd, extra string) string {
	var b strings.Builder
	b.WriteString("You are magenta, a coding assistant running inside the user's Neovim. ")
	b.WriteString("Be concise and precise. Use the tools you are given when they help; ")
	b.WriteString("explain what you did, not what you are about to do.\n")
	fmt.Fprintf(&b, "The workspace is %s on %s.\n", cwd, runtime.GOOS)
	if extra = strings.TrimSpace(extra); extra != "" {
		b.WriteString("\n")
		b.WriteString(extra)
		b.WriteString("\n")
	}
	return b.String()
}
