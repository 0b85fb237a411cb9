// Command magenta-host is magenta's Neovim remote-plugin host. Neovim
// starts it (lua/magenta/host.lua, through remote#host#Register) and
// talks msgpack-RPC over its stdin and stdout; it logs to a file.
//
//	magenta-host --manifest magenta   print the remote-plugin manifest
//	magenta-host --version            print the version
//	magenta-host check-bash [--cwd DIR] [--config FILE] [--sandbox] -- COMMAND
//	                                  say whether COMMAND would run without
//	                                  asking: prints "allow" (exit 0),
//	                                  "ask: <reason>" (exit 10) or, with
//	                                  --sandbox, "sandbox: <reason>" (exit
//	                                  11: runs confined); 2 on misuse
//	magenta-host run [flags] PROMPT   one thread in the current directory,
//	                                  no Neovim (package headless; exit
//	                                  codes in :help magenta-headless)
//	magenta-host acp [--config FILE]  an Agent Client Protocol agent on
//	                                  stdio (package acp)
//	magenta-host [--log FILE]         serve Neovim on stdio
package main

import (
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"

	"github.com/neovim/go-client/nvim"
	"github.com/neovim/go-client/nvim/plugin"

	"github.com/magenta-nvim/magenta/pkg/bashperm"
	"github.com/magenta-nvim/magenta/pkg/capabilities/procsup"
	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/remote"
	"github.com/magenta-nvim/magenta/pkg/sandbox/zygote"
)

// version is set by the Makefile (-ldflags "-X main.version=...").
var version = "dev"

func main() {
	// Re-executed as a shell command's process supervisor: supervise and
	// exit, before anything else starts (see package procsup).
	procsup.MainIfSupervisor()
	// Or as the sandbox's confinement parent or a command's init, when
	// magenta-supervisor is missing (package zygote).
	zygote.MainIfZygote()
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) > 0 && args[0] == "check-bash" {
		return bashperm.RunCLI(args[1:], os.Stdout, os.Stderr)
	}
	if len(args) > 0 && args[0] == "run" {
		return runHeadless(args[1:])
	}
	if len(args) > 0 && args[0] == "acp" {
		return runACP(args[1:])
	}
	fs := flag.NewFlagSet("magenta-host", flag.ContinueOnError)
	manifest := fs.String("manifest", "", "print the remote-plugin manifest for `host` and exit")
	showVersion := fs.Bool("version", false, "print the version and exit")
	logPath := fs.String("log", "", "log to `file` (default: stderr)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	switch {
	case *manifest != "":
		os.Stdout.Write(host.Manifest(*manifest))
		return 0
	case *showVersion:
		fmt.Println(version)
		return 0
	}
	closer, err := host.OpenLog(*logPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "magenta-host:", err)
		return 1
	}
	defer closer.Close()
	if err := serve(*logPath); err != nil {
		slog.Error("serve ended", "err", err)
		return 1
	}
	return 0
}

func serve(logPath string) error {
	// stdout is the RPC pipe: anything else printing to it would corrupt
	// the stream, so the standard logger goes to the log too.
	stdout := os.Stdout
	os.Stdout = os.Stderr
	log.SetOutput(slog.NewLogLogger(slog.Default().Handler(), slog.LevelWarn).Writer())
	v, err := nvim.New(os.Stdin, stdout, stdout, func(format string, args ...any) {
		slog.Warn("rpc: " + fmt.Sprintf(format, args...))
	})
	if err != nil {
		return err
	}
	// The provider SDKs run in the provider process, started when the
	// sidebar first opens (or at the first request; package remote):
	// linked here they cost ~8 MiB resident before anyone chats.
	providers := remote.NewClient(remote.DefaultPath(), 0)
	defer providers.Close()
	h := host.New(v, host.Options{
		Version: version, LogPath: logPath,
		NewProvider: provider.Factory(os.Getenv, provider.DefaultRetryPolicy, providers.Adapter),
		Warm:        providers.Warm,
	})
	defer h.Close()
	host.Register(plugin.New(v), h)
	slog.Info("magenta-host serving", "version", version, "pid", os.Getpid())
	return v.Serve()
}
