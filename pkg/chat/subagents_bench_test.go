package chat

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
	"github.com/magenta-nvim/magenta/pkg/chat/view"
	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/proctest"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/providertest"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

// benchSubagents is how many sub-agents one spawn starts.
const benchSubagents = 20

type nopScreen struct{ nopDisplay }

func (nopScreen) Show(string)                                 {}
func (nopScreen) BindingAt(int, view.Key) (view.Action, bool) { return view.Action{}, false }
func (nopScreen) Notify(string, Level)                        {}
func (nopScreen) NotifyIfHidden(string)                       {}
func (nopScreen) OpenFile(string, int)                        {}

// rssBytes is the process's resident set size (Linux), 0 elsewhere.
func rssBytes() int64 {
	kib, _ := proctest.StatusKiB(0, "VmRSS")
	return kib << 10
}

// BenchmarkSpawnSubagents measures the host's overhead of a spawn of 20
// sub-agents against a fake that answers at once (each sub-agent yields
// in its first reply): the whole round trip, from the user's message to
// the parent's request carrying the 20 results, per sub-agent; and what
// each sub-agent (a thread the app keeps) adds to the heap and the RSS.
// The display is a no-op: applying frames to Neovim is not included.
func BenchmarkSpawnSubagents(b *testing.B) {
	fake := providertest.New()
	finished := make(chan bool, 1) // whether every result came back
	agents := make([]map[string]any, benchSubagents)
	for i := range agents {
		agents[i] = map[string]any{"prompt": fmt.Sprintf("task %d", i)}
	}
	fake.Serve(func(c *providertest.Call) {
		switch {
		case isSubagent(c):
			yieldTo(c, "answer to "+c.FirstUserText())
		case len(c.Results()) == 0:
			c.ToolUse("spawn", "spawn_subagents", map[string]any{"agents": agents})
			c.Stop(provider.StopToolUse)
		default:
			complete := strings.Count(c.Results()["spawn"].Result[0].Text, "): done\nanswer to task") == benchSubagents
			c.Reply("done")
			finished <- complete
		}
	})
	app, err := NewApp(context.Background(), config.Options{
		Profiles:  testProfiles,
		Subagents: config.Subagents{MaxDepth: 1, MaxConcurrent: config.DefaultMaxConcurrentSubagents},
	}, AppDeps{
		Screen: nopScreen{}, Tools: tools.Default(), Env: &capabilities.Environment{Name: "bench", Cwd: b.TempDir()},
		NewProvider:  func(config.Profile) (provider.Provider, error) { return fake, nil },
		SystemPrompt: "be brief",
	})
	if err != nil {
		b.Fatal(err)
	}
	defer app.Close()
	round := func() {
		app.NewThread()
		app.Send("split the work")
		select {
		case complete := <-finished:
			if !complete {
				b.Fatal("a result is missing")
			}
		case <-time.After(30 * time.Second):
			b.Fatal("the spawn did not finish")
		}
	}
	round() // warm up: code paths, pools
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	rss := rssBytes()
	b.ResetTimer()
	for range b.N {
		round()
	}
	b.StopTimer()
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	n := float64(b.N * benchSubagents)
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/n, "ms/subagent")
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/1024/n, "heapKB/subagent")
	b.ReportMetric(float64(rssBytes()-rss)/1024/n, "rssKB/subagent")
	b.ReportMetric(0, "ns/op")
}
