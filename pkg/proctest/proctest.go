package proctest

import (
	"fmt"
	"os"
	"strconv"
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

// StatusKiB reads a "<field>:  <n> kB" line (VmRSS, VmHWM, RssAnon,
// RssFile…) of /proc/<pid>/status; pid 0 is this process.
func StatusKiB(pid int, field string) (int64, error) {
	path := "/proc/self/status"
	if pid != 0 {
		path = fmt.Sprintf("/proc/%d/status", pid)
	}
	status, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in %s", field, path)
}

// CommandRunning reports whether a process whose argv is exactly argv
// runs (read from /proc/<pid>/cmdline): how a test finds the escapee it
// planted ("sleep 7801") without knowing its pid.
func CommandRunning(argv ...string) bool {
	want := strings.Join(argv, "\x00") + "\x00"
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && string(b) == want {
			return true
		}
	}
	return false
}
