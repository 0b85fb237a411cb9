package view

import (
	"fmt"
	"strings"
	"testing"

	"github.com/magenta-nvim/magenta/pkg/goldentest"
)

// dump writes a frame as lines, then its highlights and bindings, in a
// stable order.
func dump(f *Frame) string {
	var b strings.Builder
	line := 0
	var hls, binds []string
	for _, s := range f.Sections {
		for i, l := range s.Lines {
			fmt.Fprintf(&b, "%3d| %s\n", line+i, l.Text)
			for _, h := range l.Hl {
				hls = append(hls, fmt.Sprintf("%3d %d-%d %s", line+i, h.Start, h.End, h.Group))
			}
		}
		for _, bd := range s.Bindings {
			binds = append(binds, fmt.Sprintf("%3d-%d %s -> %s %s %s", line+bd.Start, line+bd.End, bd.Key, bd.Action.Kind, bd.Action.Target, bd.Action.Arg))
		}
		line += len(s.Lines)
	}
	b.WriteString("-- highlights\n" + strings.Join(hls, "\n") + "\n-- bindings\n" + strings.Join(binds, "\n") + "\n")
	return b.String()
}

func sampleThread() *Frame {
	return &Frame{Sections: []*Section{
		RenderHeader("header", 1, Header{Title: "Fix the parser", Profile: "claude", Provider: "anthropic", Model: "claude-sonnet-4-5",
			Usage: Usage{Input: 123_456, Output: 1234, CacheRead: 98_765, CacheWrite: 20_000, Cost: 0.0412, Priced: true}}),
		RenderUser("e1", 1, "The parser drops\nthe last token.", false),
		RenderAssistantHead("e2h", 1, []string{"Let me look.", "", "- first"}, true, FullText{}),
		RenderAssistantTail("e2t", 1, "- second"),
		RenderToolCall("T", "e3", 1, ToolCall{Name: "thread_title", Input: `{"title":"Fix the parser"}`, Status: ToolDone, Summary: "Fix the parser", Result: "Thread title set."}),
		RenderToolCall("T", "e4", 1, ToolCall{Name: "thread_title", Input: `{"title":""}`, Status: ToolFailed, Summary: "title must not be empty", Result: "title must not be empty", Expanded: true}),
		RenderToolCall("T", "e5", 1, ToolCall{Name: "slow\ntool", Status: ToolPreparing}),
		RenderToolCall("T", "e5b", 1, ToolCall{Name: "bash_command", Status: ToolRunning, Summary: "run the tests", Detail: "$ make test", Running: "3s of 2m0s", Live: []string{"ok  pkg/a", "ok  pkg/b"}}),
		RenderToolCall("T", "e5c", 1, ToolCall{Name: "bash_command", Status: ToolRunning, Summary: "clean", Detail: "$ rm -rf build",
			Approval: &Approval{ID: "a1", Subject: "rm -rf build\necho done", Reason: "runs `rm`, which no rule allows", Always: "this exact command, every thread, until Neovim exits", Keys: DefaultApprovalKeys}}),
		RenderToolCall("T", "e5d", 1, ToolCall{Name: "bash_command", Status: ToolDone, Summary: "list — exit code 0 after 12ms", Detail: "$ ls", LogPath: "/tmp/magenta/threads/T/tools/tu/bashCommand.log"}),
		RenderNotice("e5e", 1, NoticeInfo, TurnUsageLine(Usage{Input: 12_345, Output: 321, CacheRead: 11_000}, 2)),
		RenderNotice("e6", 1, NoticeWarning, "overloaded; retrying in 2s (attempt 2 of 5)"),
		RenderNotice("e7", 1, NoticeError, "the request failed: boom\nWhat was streamed is kept."),
		RenderUser("e8", 1, "and then?", true),
		RenderStatus("status", 1, "streaming · :Magenta abort stops"),
	}}
}

func TestGoldenThread(t *testing.T) {
	goldentest.Assert(t, "testdata/thread.golden", dump(sampleThread()))
}

// An interactive command: the last ScreenLines lines of its screen, the
// waiting hint, the open note, and the terminal binding.
func TestGoldenInteractive(t *testing.T) {
	screen := []string{"line 1", "line 2", "line 3", "line 4", "line 5", "line 6", "line 7", "line 8", "line 9", "Enter your name: "}
	f := &Frame{Sections: []*Section{
		RenderToolCall("T", "e1", 1, ToolCall{Name: "bash_command", Status: ToolRunning, Summary: "ask a name", Detail: "$ ./ask.sh", Running: "5s of 2m0s",
			Live: []string{"not shown"}, Screen: screen, Waiting: true, Terminal: TerminalAvailable, TerminalKey: "t"}),
		RenderToolCall("T", "e2", 1, ToolCall{Name: "bash_command", Status: ToolRunning, Summary: "python", Detail: "$ python3", Running: "1s of 2m0s",
			Screen: []string{">>> 1+1", "2", ">>> "}, Waiting: true, Terminal: TerminalOpen, TerminalKey: "t"}),
		RenderToolCall("T", "e3", 1, ToolCall{Name: "bash_command", Status: ToolDone, Summary: "ask a name — exit code 0 after 9s", Detail: "$ ./ask.sh",
			Screen: screen, Terminal: TerminalAvailable, TerminalKey: "<leader>T", LogPath: "/tmp/magenta/threads/T/tools/tu/bashCommand.log"}),
		RenderToolCall("T", "e4", 1, ToolCall{Name: "bash_command", Status: ToolRunning, Summary: "no key", Detail: "$ ./ask.sh", Running: "5s of 2m0s",
			Screen: []string{"Password:"}, Waiting: true, Terminal: TerminalAvailable}),
	}}
	goldentest.Assert(t, "testdata/interactive.golden", dump(f))
}

func TestGoldenThreadList(t *testing.T) {
	f := RenderThreadList([]ThreadSummary{
		{ID: "0193a1b2-c3d4-7aaa-8000-000000000001", Title: "Fix the parser", Status: "idle", Profile: "claude"},
		{ID: "0193a1b2-c3d5-7bbb-8000-000000000002", Title: "", Status: "busy", Profile: "local"},
	}, "0193a1b2-c3d5-7bbb-8000-000000000002", "<CR>", 1)
	goldentest.Assert(t, "testdata/threads.golden", dump(f))
}

// The header's MCP line (servers starting, failed, both) and the
// workspace question about a project's .mcp.json.
func TestGoldenMCP(t *testing.T) {
	h := Header{Title: "Fix the parser", Profile: "claude", Provider: "anthropic", Model: "claude-sonnet-4-5"}
	starting, failed, both := h, h, h
	starting.MCP = NewMCPLine([]string{"github"}, nil)
	failed.MCP = NewMCPLine(nil, []string{"db"})
	both.MCP = NewMCPLine([]string{"github", "docs"}, []string{"db"})
	f := &Frame{Sections: []*Section{
		RenderHeader("h1", 1, starting),
		RenderHeader("h2", 1, failed),
		RenderHeader("h3", 1, both),
		RenderHeader("h4", 1, h), // all ready: no line
		RenderWorkspaceApproval("ws", 1, "T", &Approval{ID: "a7",
			// Keys as configured (deny disabled): the hint names those.
			Keys:    ApprovalKeys{Activate: "<Space>", Approve: "y", Always: "A"},
			Subject: "/work/repo/.mcp.json\ngithub: npx -y server-github\ndocs: http https://docs.example/mcp",
			Reason:  "this workspace's .mcp.json starts these MCP servers; start them?"}),
		RenderWorkspaceApproval("ws2", 1, "T", nil),
	}}
	goldentest.Assert(t, "testdata/mcp.golden", dump(f))
}

// An edit whose check found diagnostics it introduced and fixed: the
// notes under the diff (tools.Result.Notes), inside the diff's binding
// neither; a running call shows none yet.
func TestGoldenEditNotes(t *testing.T) {
	diff := "--- main.go\n+++ main.go\n@@ -3,3 +3,3 @@\n func main() {\n-\tx := 1\n+\tfmt.Println(y)\n }\n"
	notes := []string{
		"Diagnostics after this edit: 1 introduced, 1 fixed",
		"introduced: main.go:4:14 error undefined: y (compiler)",
		"fixed: main.go:4:2 error declared and not used: x (compiler)",
	}
	f := &Frame{Sections: []*Section{
		RenderToolCall("T", "e1", 1, ToolCall{Name: "edit_file", Status: ToolDone, Summary: "main.go +1 -1", Diff: diff,
			DiffPath: "/w/main.go", DiffLine: 4, Notes: notes}),
		RenderToolCall("T", "e2", 1, ToolCall{Name: "edit_file", Status: ToolRunning, Summary: "main.go", Notes: notes}),
	}}
	goldentest.Assert(t, "testdata/edit_notes.golden", dump(f))
}
