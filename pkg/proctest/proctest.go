package proctest

import (
	"fmt"
	"os"
	"strings"
)

// Alive reports whether process pid exists and is not a zombie (an
// orphan whose exit the container's init has not collected yet counts as
// gone).
func Alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command name, which is in parentheses.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
