package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/magenta-nvim/magenta/pkg/acp"
	"github.com/magenta-nvim/magenta/pkg/headless"
	"github.com/magenta-nvim/magenta/pkg/host"
	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/provider/remote"
)

// runACP is `magenta-host acp [--config FILE] [--log FILE]`: an Agent
// Client Protocol agent on stdio (package acp). stdout is the protocol's
// pipe, so the log goes to the file or stderr.
func runACP(args []string) int {
	fs := flag.NewFlagSet("magenta-host acp", flag.ContinueOnError)
	configPath := fs.String("config", headless.DefaultConfigPath(os.Getenv), "options as JSON `file` (setup()'s names)")
	logPath := fs.String("log", "", "log to `file` (default: stderr)")
	if err := fs.Parse(args); err != nil {
		return headless.ExitUsage
	}
	required := false
	fs.Visit(func(f *flag.Flag) { required = required || f.Name == "config" })
	opts, err := headless.LoadConfig(*configPath, required)
	if err != nil {
		fmt.Fprintln(os.Stderr, "magenta-host acp:", err)
		return headless.ExitUsage
	}
	closer, err := host.OpenLog(*logPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "magenta-host acp:", err)
		return headless.ExitUsage
	}
	defer closer.Close()
	stdout := os.Stdout
	os.Stdout = os.Stderr // nothing else may write to the protocol's pipe
	log.SetOutput(slog.NewLogLogger(slog.Default().Handler(), slog.LevelWarn).Writer())
	providers := remote.NewClient(remote.DefaultPath(), 0)
	defer providers.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := acp.Serve(ctx, os.Stdin, stdout, acp.Deps{
		Options:     opts,
		NewProvider: provider.Factory(os.Getenv, provider.DefaultRetryPolicy, providers.Adapter),
		Warm:        providers.Warm,
		Version:     version,
	}); err != nil {
		slog.Error("acp ended", "err", err)
		return headless.ExitFailure
	}
	return headless.ExitOK
}
