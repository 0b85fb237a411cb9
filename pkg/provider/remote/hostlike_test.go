package remote_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/magenta-nvim/magenta/pkg/proctest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/remote"
)

// hostLikeEnv makes the test binary act as a host: it starts a stream
// through a Client and prints the provider process's pid.
const hostLikeEnv = "MAGENTA_REMOTE_TEST_HOSTLIKE"

func runHostLike() int {
	url, bin, _ := strings.Cut(os.Getenv(hostLikeEnv), " ")
	client := remote.NewClient(bin, 0)
	p, err := client.Adapter(provider.Spec{Provider: "anthropic", BaseURL: url, APIKey: "k", IdleTimeout: time.Minute})
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	first := make(chan struct{}, 1)
	go func() {
		_, _ = p.Stream(context.Background(), request("hi"), func(provider.Event) {
			select {
			case first <- struct{}{}:
			default:
			}
		})
	}()
	<-first
	fmt.Println(client.PID())
	select {} // until killed
}

// TestProviderProcessDiesWithTheHost: a host SIGKILLed mid-stream (no
// chance to close anything) leaves no provider process behind.
func TestProviderProcessDiesWithTheHost(t *testing.T) {
	url, _, gone := heldServer(t)
	self, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), hostLikeEnv+"="+url+" "+providerBin)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	require.NoError(t, err, line)
	require.True(t, proctest.Alive(pid))

	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	require.Eventually(t, func() bool { return !proctest.Alive(pid) }, wait, 10*time.Millisecond, "provider process %d outlived its host", pid)
	within(t, gone, "dropped request")
}
