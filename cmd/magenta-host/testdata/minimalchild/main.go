// Command minimalchild is the floor BenchmarkFirstToggle compares the
// first :Magenta toggle with: the least a Go RPC child can do to show a
// line in a new window — connect on stdio, make a buffer with one line,
// open it in a split, and say so — with no plugin Lua around it.
package main

import (
	"log"
	"os"

	"github.com/neovim/go-client/nvim"
)

func main() {
	v, err := nvim.New(os.Stdin, os.Stdout, os.Stdout, log.Printf)
	if err != nil {
		log.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- v.Serve() }()
	b := v.NewBatch()
	var buf nvim.Buffer
	b.CreateBuffer(false, true, &buf)
	if err := b.Execute(); err != nil {
		log.Fatal(err)
	}
	b = v.NewBatch()
	b.SetBufferLines(buf, 0, -1, true, [][]byte{[]byte("# New thread")})
	b.Command("botright vsplit")
	b.SetCurrentBuffer(buf)
	b.ExecLua("_G.magenta_bench.done = vim.loop.hrtime()", nil)
	if err := b.Execute(); err != nil {
		log.Fatal(err)
	}
	<-done
}
