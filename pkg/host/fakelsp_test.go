package host_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// The test binary doubles as a tiny language server for what gopls will
// not do on request: crash in the middle of a request, or stand beside
// gopls as a second server of the same file. Neovim starts it with
// fakeLSPEnv set to the mode (cmd_env), and init serves instead of
// running tests.
const fakeLSPEnv = "MAGENTA_FAKE_LSP"

func init() {
	if mode := os.Getenv(fakeLSPEnv); mode != "" {
		serveFakeLSP(mode, os.Stdin, os.Stdout)
		os.Exit(0)
	}
}

// serveFakeLSP answers initialize and shutdown. Mode "crash" exits with
// status 3 on any other request; mode "symbols" answers
// textDocument/documentSymbol with one symbol, FakeSymbol on line 1.
func serveFakeLSP(mode string, in io.Reader, out io.Writer) {
	r := bufio.NewReader(in)
	send := func(v any) {
		body, _ := json.Marshal(v)
		fmt.Fprintf(out, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	for {
		length := 0
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				length, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &msg) != nil || msg.ID == nil {
			if msg.Method == "exit" {
				return
			}
			continue // a notification
		}
		reply := map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": nil}
		switch msg.Method {
		case "initialize":
			reply["result"] = map[string]any{"capabilities": map[string]any{
				"textDocumentSync":       1,
				"documentSymbolProvider": true,
				"renameProvider":         mode == "crash",
			}}
		case "shutdown":
		case "textDocument/documentSymbol":
			if mode == "crash" {
				os.Exit(3)
			}
			at := map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 4}}
			reply["result"] = []any{map[string]any{"name": "FakeSymbol", "kind": 13, "range": at, "selectionRange": at}}
		default:
			if mode == "crash" {
				os.Exit(3)
			}
		}
		send(reply)
	}
}
