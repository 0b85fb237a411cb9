package config

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"
)

// Provider names a wire protocol.
const (
	ProviderAnthropic = "anthropic"
	ProviderOpenAI    = "openai"
)

// Profile is one model configuration the user can switch to.
type Profile struct {
	Name     string `json:"name"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
	// BaseURL overrides the provider's endpoint (a proxy, Ollama,
	// llama.cpp, vLLM).
	BaseURL string `json:"baseUrl,omitempty"`
	// APIKeyEnvVar names the environment variable holding the key.
	// Empty means the provider's usual one; with an OpenAI-compatible
	// BaseURL an empty value means no key is needed.
	APIKeyEnvVar string `json:"apiKeyEnvVar,omitempty"`
	MaxTokens    int    `json:"maxTokens,omitempty"`
	// IdleTimeout is how many seconds a reply stream may stay silent
	// before it is abandoned; 0 means provider.DefaultIdleTimeout.
	IdleTimeout float64 `json:"idleTimeout,omitempty"`
	// Pricing turns token counts into cost; nil shows tokens only.
	Pricing *Pricing `json:"pricing,omitempty"`
	// Thinking turns on Anthropic's extended thinking; ReasoningEffort
	// is an OpenAI-compatible reasoning model's effort (see thinking.go).
	Thinking        *Thinking `json:"thinking,omitempty"`
	ReasoningEffort string    `json:"reasoningEffort,omitempty"`
	// ContextWindow, CompactAt and CompactProfile steer compaction (see
	// compaction.go); zero values take the defaults.
	ContextWindow  int     `json:"contextWindow,omitempty"`
	CompactAt      float64 `json:"compactAt,omitempty"`
	CompactProfile string  `json:"compactProfile,omitempty"`
	// Images false says the model takes no images: they are left out
	// of its requests, with a note (pkg/chat/images.go). Nil: it does.
	Images *bool `json:"images,omitempty"`
}

// AcceptsImages reports whether the profile's model takes images.
func (p Profile) AcceptsImages() bool { return p.Images == nil || *p.Images }

// Pricing is what a profile's model costs, in USD per million tokens.
// A cache price left out costs as much as an uncached input token, so the
// cost shown is never less than what was billed.
type Pricing struct {
	Input      float64  `json:"input"`
	Output     float64  `json:"output"`
	CacheRead  *float64 `json:"cacheRead,omitempty"`
	CacheWrite *float64 `json:"cacheWrite,omitempty"`
}

// CacheReadPrice is the price of a token read from the prompt cache.
func (p Pricing) CacheReadPrice() float64 {
	if p.CacheRead != nil {
		return *p.CacheRead
	}
	return p.Input
}

// CacheWritePrice is the price of a token written to the prompt cache.
func (p Pricing) CacheWritePrice() float64 {
	if p.CacheWrite != nil {
		return *p.CacheWrite
	}
	return p.Input
}

// validate names the first price that is negative or not finite.
func (p Pricing) validate(where string) error {
	prices := []struct {
		name  string
		value *float64
	}{{"input", &p.Input}, {"output", &p.Output}, {"cacheRead", p.CacheRead}, {"cacheWrite", p.CacheWrite}}
	for _, pr := range prices {
		if pr.value != nil && !(*pr.value >= 0 && *pr.value <= math.MaxFloat64) {
			return fmt.Errorf("%s.pricing.%s: must be a non-negative number of USD per million tokens, got %v", where, pr.name, *pr.value)
		}
	}
	return nil
}

// KeyEnvVar returns the variable to read the API key from and whether a
// key is required.
func (p Profile) KeyEnvVar() (name string, required bool) {
	if p.APIKeyEnvVar != "" {
		return p.APIKeyEnvVar, true
	}
	switch p.Provider {
	case ProviderAnthropic:
		return "ANTHROPIC_API_KEY", true
	default:
		// Local OpenAI-compatible servers need no key.
		return "OPENAI_API_KEY", p.BaseURL == ""
	}
}

// Shell configures the shell capability and its permission checker.
type Shell struct {
	// LogRoot holds command logs; default /tmp/magenta.
	LogRoot string `json:"logRoot,omitempty"`
	// MaxTimeout caps bash_command's timeout, in seconds.
	MaxTimeout float64 `json:"maxTimeout,omitempty"`
	// LogMaxBytes caps one command's log (head and tail kept).
	LogMaxBytes int64 `json:"logMaxBytes,omitempty"`
	// LogQuotaBytes caps all threads' files under the log root.
	LogQuotaBytes int64 `json:"logQuotaBytes,omitempty"`
	// LogMaxAgeDays is how long a thread's files are kept.
	LogMaxAgeDays float64 `json:"logMaxAgeDays,omitempty"`
	// Rules are extra permission rules, decoded by package bashperm.
	Rules json.RawMessage `json:"rules,omitempty"`
	// Interactive says who decides whether bash_command runs a command
	// under a pseudo-terminal: "model" (default), "always" or "never".
	Interactive string `json:"interactive,omitempty"`
}

// Values of Shell.Interactive.
const (
	InteractiveModel  = "model"
	InteractiveAlways = "always"
	InteractiveNever  = "never"
)

// FileRule is a user rule for the file tools' permissions.
type FileRule struct {
	Path   string `json:"path"`
	Read   bool   `json:"read,omitempty"`
	Write  bool   `json:"write,omitempty"`
	Secret bool   `json:"secret,omitempty"`
}

// Files configures the file tools.
type Files struct {
	Rules []FileRule `json:"rules,omitempty"`
}

// Grep configures where ripgrep comes from.
type Grep struct {
	RgPath   string `json:"rgPath,omitempty"`
	Download bool   `json:"download,omitempty"`
}

// DefaultLogRoot is where command logs go unless configured.
const DefaultLogRoot = "/tmp/magenta"

// Options is the part of the user's configuration the host uses.
type Options struct {
	Profiles []Profile `json:"profiles"`
	Shell    Shell     `json:"shell,omitempty"`
	Grep     Grep      `json:"grep,omitempty"`
	Files    Files     `json:"files,omitempty"`
	Sandbox  Sandbox   `json:"sandbox,omitempty"`
	// Environment is where new threads work by default.
	Environment Environment `json:"environment,omitempty"`
	// Environments are named environments spawn_subagents may send a
	// sub-agent to without asking (environments.go).
	Environments map[string]Environment `json:"environments,omitempty"`
	// Subagents configures sub-agents (spawn_subagents).
	Subagents Subagents `json:"subagents,omitempty"`
	// MCPServers are the Model Context Protocol servers by name.
	MCPServers map[string]MCPServer `json:"mcpServers,omitempty"`
	// MCPProjectFile says whether a workspace's .mcp.json is read (after
	// the user trusts it); nil means true.
	MCPProjectFile *bool `json:"mcpProjectFile,omitempty"`
	// Hooks are setup()'s hooks, in the shape of Claude Code's settings
	// "hooks" (hooks.go): kept raw here and read by pkg/hooks at attach.
	Hooks json.RawMessage `json:"hooks,omitempty"`
	// HooksProjectFile says whether a workspace's .claude/settings.json
	// and settings.local.json hooks are read (after the user trusts
	// them); nil means true.
	HooksProjectFile *bool `json:"hooksProjectFile,omitempty"`
	// Threads configures saved threads (threads.go).
	Threads Threads `json:"threads,omitempty"`
	// Checkpoints configures :Magenta rewind's checkpoints (checkpoints.go).
	Checkpoints Checkpoints `json:"checkpoints,omitempty"`
	// LSP configures the check of edits against the language servers
	// (lsp.go).
	LSP LSP `json:"lsp,omitempty"`
	// Search configures web_search's back ends (search.go).
	Search Search `json:"search,omitempty"`
	// SystemPrompt is appended to magenta's own system prompt.
	SystemPrompt string `json:"systemPrompt,omitempty"`
	LogLevel     string `json:"logLevel,omitempty"`
	// TerminalKey is keymaps.display.terminal as the chat names it in
	// hints: nil means the default "t", "" that it is disabled.
	TerminalKey *string `json:"terminalKey,omitempty"`
	// DisplayKeys are keymaps.display's answering keys as the chat names
	// them in approval blocks: nil means the defaults, "" a disabled key.
	DisplayKeys *DisplayKeys `json:"displayKeys,omitempty"`
}

// DisplayKeys are the display keys an approval block names.
type DisplayKeys struct {
	Activate string `json:"activate"`
	Approve  string `json:"approve"`
	Deny     string `json:"deny"`
	Always   string `json:"always"`
}

// DefaultDisplayKeys are keymaps.display's defaults.
var DefaultDisplayKeys = DisplayKeys{Activate: "<CR>", Approve: "a", Deny: "d", Always: "A"}

// DisplayKeyLabels returns the display keys, the defaults when not sent.
func (o Options) DisplayKeyLabels() DisplayKeys {
	if o.DisplayKeys == nil {
		return DefaultDisplayKeys
	}
	return *o.DisplayKeys
}

// DefaultTerminalKey is keymaps.display.terminal's default.
const DefaultTerminalKey = "t"

// TerminalKeyLabel is the key that opens an interactive command's
// terminal, "" when disabled.
func (o Options) TerminalKeyLabel() string {
	if o.TerminalKey == nil {
		return DefaultTerminalKey
	}
	return *o.TerminalKey
}

// Decode parses options sent by the Lua side (JSON-encoded there, so
// Lua's empty-table ambiguity does not reach Go) and validates them.
func Decode(data []byte) (Options, error) {
	var o Options
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&o); err != nil {
		return Options{}, fmt.Errorf("magenta options: %w", err)
	}
	return o, o.Validate()
}

// Validate reports the first problem, naming the option.
func (o Options) Validate() error {
	if len(o.Profiles) == 0 {
		return fmt.Errorf("magenta options: profiles: at least one profile is required")
	}
	seen := map[string]bool{}
	for i, p := range o.Profiles {
		where := fmt.Sprintf("magenta options: profiles[%d]", i+1)
		if p.Name == "" {
			return fmt.Errorf("%s.name: must be a non-empty string", where)
		}
		if seen[p.Name] {
			return fmt.Errorf("%s.name: %q is used twice", where, p.Name)
		}
		seen[p.Name] = true
		if p.Provider != ProviderAnthropic && p.Provider != ProviderOpenAI {
			return fmt.Errorf("%s.provider: %q is not one of %q, %q", where, p.Provider, ProviderAnthropic, ProviderOpenAI)
		}
		if p.Model == "" {
			return fmt.Errorf("%s.model: must be a non-empty string", where)
		}
		if p.MaxTokens < 0 {
			return fmt.Errorf("%s.maxTokens: must be positive", where)
		}
		if p.IdleTimeout < 0 {
			return fmt.Errorf("%s.idleTimeout: must be positive", where)
		}
		if p.Pricing != nil {
			if err := p.Pricing.validate(where); err != nil {
				return err
			}
		}
		if err := p.validateLongThreads(where, o); err != nil {
			return err
		}
		if p.BaseURL != "" && !strings.HasPrefix(p.BaseURL, "http://") && !strings.HasPrefix(p.BaseURL, "https://") {
			return fmt.Errorf("%s.baseUrl: %q must start with http:// or https://", where, p.BaseURL)
		}
	}
	if o.Shell.MaxTimeout < 0 {
		return fmt.Errorf("magenta options: shell.maxTimeout: must be positive")
	}
	for i, r := range o.Files.Rules {
		if !filepath.IsAbs(r.Path) {
			return fmt.Errorf("magenta options: files.rules[%d].path: %q must be an absolute path", i+1, r.Path)
		}
	}
	if err := o.Environment.validate(); err != nil {
		return err
	}
	if err := o.validateEnvironments(); err != nil {
		return err
	}
	if err := o.Sandbox.validate(); err != nil {
		return err
	}
	if o.Shell.LogMaxBytes < 0 || o.Shell.LogQuotaBytes < 0 || o.Shell.LogMaxAgeDays < 0 {
		return fmt.Errorf("magenta options: shell.logMaxBytes, shell.logQuotaBytes and shell.logMaxAgeDays must not be negative")
	}
	switch o.Shell.Interactive {
	case "", InteractiveModel, InteractiveAlways, InteractiveNever:
	default:
		return fmt.Errorf("magenta options: shell.interactive: %q is not one of %q, %q, %q", o.Shell.Interactive, InteractiveModel, InteractiveAlways, InteractiveNever)
	}
	if o.Shell.LogRoot != "" && !filepath.IsAbs(o.Shell.LogRoot) {
		return fmt.Errorf("magenta options: shell.logRoot: %q must be an absolute path", o.Shell.LogRoot)
	}
	if err := o.validateMCP(); err != nil {
		return err
	}
	if err := o.Threads.validate(); err != nil {
		return err
	}
	if err := o.Checkpoints.validate(); err != nil {
		return err
	}
	if err := o.LSP.validate(); err != nil {
		return err
	}
	if err := o.Search.validate(); err != nil {
		return err
	}
	return o.validateSubagents()
}

// Profile returns the profile called name.
func (o Options) Profile(name string) (Profile, bool) {
	for _, p := range o.Profiles {
		if p.Name == name {
			return p, true
		}
	}
	return Profile{}, false
}

// MaxShellTimeout is Shell.MaxTimeout as a duration (0 when unset).
func (o Options) MaxShellTimeout() time.Duration {
	return time.Duration(o.Shell.MaxTimeout * float64(time.Second))
}

// LogMaxAge is Shell.LogMaxAgeDays as a duration (0 when unset).
func (o Options) LogMaxAge() time.Duration {
	return time.Duration(o.Shell.LogMaxAgeDays * float64(24*time.Hour))
}

// LogRoot is the configured log root or the default.
func (o Options) LogRoot() string {
	if o.Shell.LogRoot != "" {
		return o.Shell.LogRoot
	}
	return DefaultLogRoot
}
