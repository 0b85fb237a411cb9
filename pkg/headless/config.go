package headless

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/magenta-nvim/magenta/pkg/config"
	"github.com/magenta-nvim/magenta/pkg/hooks"
	"github.com/magenta-nvim/magenta/pkg/localenv"
)

// defaultOptions are lua/magenta/config.lua's defaults of the options the
// host reads, as setup() sends them when given nothing: a config file is
// merged over them the way setup()'s options are (a list replaces the
// default list, an object is merged key by key). TestDefaultsMatchLua
// holds the two together.
const defaultOptions = `{
  "profiles": [{"name": "claude-sonnet", "provider": "anthropic", "model": "claude-sonnet-4-5", "apiKeyEnvVar": "ANTHROPIC_API_KEY"}],
  "shell": {"logRoot": "/tmp/magenta", "maxTimeout": 600, "interactive": "model"},
  "grep": {"download": false},
  "subagents": {"maxConcurrent": 4, "maxDepth": 1},
  "mcpProjectFile": true,
  "hooksProjectFile": true,
  "environment": {"type": "local"},
  "threads": {"persist": true, "maxAge": 90},
  "checkpoints": {"enabled": true},
  "lsp": {"verifyEdits": true, "verifyTimeout": 3},
  "sandbox": {"enabled": "auto", "network": "deny"},
  "logLevel": "info"
}`

// luaOnly are setup()'s options that only the editor uses (windows, keys,
// the host binary): a config file shared with Neovim may hold them, and
// a headless run ignores them.
var luaOnly = map[string]bool{"sidebar": true, "keymaps": true, "inline": true, "host": true}

// ConfigError names every problem of a config file, as setup() does.
type ConfigError struct {
	Path     string
	Problems []string
}

func (e *ConfigError) Error() string {
	if len(e.Problems) == 1 {
		return fmt.Sprintf("%s: %s", e.Path, e.Problems[0])
	}
	return fmt.Sprintf("%s: %d problems:\n  - %s", e.Path, len(e.Problems), strings.Join(e.Problems, "\n  - "))
}

// DefaultConfigPath is ~/.config/magenta/config.json ($XDG_CONFIG_HOME
// when set).
func DefaultConfigPath(getenv func(string) string) string {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "magenta", "config.json")
}

// LoadConfig reads the options from path, merged over setup()'s
// defaults. A missing file is an error only when required (the user
// named it); otherwise the defaults alone apply.
func LoadConfig(path string, required bool) (config.Options, error) {
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist) && !required:
		data = []byte("{}")
	case err != nil:
		return config.Options{}, &ConfigError{Path: path, Problems: []string{err.Error()}}
	}
	opts, problems := DecodeConfig(data)
	if len(problems) > 0 {
		return config.Options{}, &ConfigError{Path: path, Problems: problems}
	}
	return opts, nil
}

// DecodeConfig merges the JSON options over the defaults, decodes each
// option on its own and validates the result, naming every problem: an
// unknown option, a wrongly typed one, and what pkg/config's validation
// refuses.
func DecodeConfig(data []byte) (config.Options, []string) {
	var user any
	if err := json.Unmarshal(data, &user); err != nil {
		return config.Options{}, []string{"not valid JSON: " + err.Error()}
	}
	userMap, ok := user.(map[string]any)
	if !ok {
		return config.Options{}, []string{"the options must be a JSON object"}
	}
	var defaults map[string]any
	if err := json.Unmarshal([]byte(defaultOptions), &defaults); err != nil {
		panic("headless: bad default options: " + err.Error()) // a bug, caught by every test
	}
	merged := merge(defaults, userMap).(map[string]any)
	var opts config.Options
	fields := optionFields()
	keys := make([]string, 0, len(merged))
	for k := range merged {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var problems []string
	for _, k := range keys {
		if luaOnly[k] {
			continue
		}
		i, ok := fields[k]
		if !ok || derived[k] {
			problems = append(problems, fmt.Sprintf("unknown option '%s'", k))
			continue
		}
		raw, _ := json.Marshal(merged[k])
		field := reflect.ValueOf(&opts).Elem().Field(i)
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(field.Addr().Interface()); err != nil {
			problems = append(problems, describeDecodeError(k, err))
			// The default stands in, so that validating the rest does
			// not complain about what is already named.
			field.SetZero()
			if d, ok := defaults[k]; ok {
				raw, _ := json.Marshal(d)
				_ = json.Unmarshal(raw, field.Addr().Interface())
			}
		}
	}
	problems = append(problems, validationProblems(opts, defaults, keys, fields)...)
	// What the host checks at attach beyond pkg/config: the command
	// rules and the hooks, which pkg/config passes through unparsed.
	if _, err := localenv.BashChecker(opts); err != nil {
		problems = append(problems, strings.TrimPrefix(err.Error(), "magenta options: "))
	}
	if _, _, err := hooks.ParseOption(opts.Hooks); err != nil {
		problems = append(problems, strings.TrimPrefix(err.Error(), "magenta options: "))
	}
	return opts, problems
}

// validationProblems are what config.Options.Validate refuses. It
// names the first problem it finds, so each option is also validated on
// its own — over the defaults, with the file's profiles when they are
// valid (other options name them) — and every distinct problem is kept;
// a joined error is split.
func validationProblems(opts config.Options, defaults map[string]any, keys []string, fields map[string]int) []string {
	whole := opts.Validate()
	if whole == nil {
		return nil
	}
	var base config.Options
	raw, _ := json.Marshal(defaults)
	_ = json.Unmarshal(raw, &base)
	trial := base
	trial.Profiles = opts.Profiles
	if trial.Validate() == nil {
		base.Profiles = opts.Profiles
	}
	var out []string
	seen := map[string]bool{}
	add := func(err error) {
		if err == nil {
			return
		}
		errs := []error{err}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			errs = j.Unwrap()
		}
		for _, e := range errs {
			msg := strings.TrimPrefix(e.Error(), "magenta options: ")
			if !seen[msg] {
				seen[msg] = true
				out = append(out, msg)
			}
		}
	}
	for _, k := range keys {
		i, ok := fields[k]
		if !ok {
			continue
		}
		trial := base
		v := reflect.ValueOf(&trial).Elem()
		v.Field(i).Set(reflect.ValueOf(opts).Field(i))
		add(trial.Validate())
	}
	add(whole) // what only the options together break
	return out
}

// optionFields maps each option's JSON name to its field of
// config.Options.
func optionFields() map[string]int {
	t := reflect.TypeFor[config.Options]()
	out := map[string]int{}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out[name] = i
		}
	}
	return out
}

// derived are options the host reads that setup() computes from others
// (keymaps): not options a user writes.
var derived = map[string]bool{"terminalKey": true, "displayKeys": true}

// describeDecodeError names the option a decoding error is about.
func describeDecodeError(key string, err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		path := key
		if te.Field != "" {
			path += "." + te.Field
		}
		return fmt.Sprintf("option '%s': a JSON %s is not a valid value (expected %s)", path, te.Value, jsonKind(te.Type))
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if f, ok := strings.CutPrefix(msg, "unknown field "); ok {
		return fmt.Sprintf("unknown option '%s.%s'", key, strings.Trim(f, `"`))
	}
	return fmt.Sprintf("option '%s': %s", key, msg)
}

// jsonKind names a Go type the way the JSON file spells its values.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "a whole number"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return t.String()
}

// merge is lua/magenta/config.lua's merge: a list (or any non-object)
// replaces the default, an object is merged key by key.
func merge(defaults, user any) any {
	if user == nil {
		return defaults
	}
	d, dok := defaults.(map[string]any)
	u, uok := user.(map[string]any)
	if !dok || !uok {
		return user
	}
	out := make(map[string]any, len(d)+len(u))
	for k, v := range d {
		out[k] = merge(v, u[k])
	}
	for k, v := range u {
		if _, ok := d[k]; !ok {
			out[k] = v
		}
	}
	return out
}
