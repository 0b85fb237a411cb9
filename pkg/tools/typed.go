package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/jsonschema-go/jsonschema"
)

// InvalidArgumentsKey is the field under which a provider adapter passes
// tool arguments that were not a JSON object.
const InvalidArgumentsKey = "_invalid_arguments"

// InvalidInputExcerpt bounds how much of an invalid input is quoted back to
// the model and shown in the chat.
const InvalidInputExcerpt = 200

// InvalidInput reports whether a provider adapter marked input as not a
// JSON object, with a bounded excerpt of what the model sent.
func InvalidInput(input []byte) (excerpt string, invalid bool) {
	if !bytes.Contains(input, []byte(InvalidArgumentsKey)) {
		return "", false
	}
	var m map[string]any
	if json.Unmarshal(input, &m) != nil {
		return "", false
	}
	raw, ok := m[InvalidArgumentsKey]
	if !ok {
		return "", false
	}
	text := fmt.Sprint(raw)
	if r := []rune(text); len(r) > InvalidInputExcerpt {
		text = string(r[:InvalidInputExcerpt]) + "…"
	}
	return text, true
}

// Typed builds a Tool whose input is the struct P. The schema is inferred
// from P (use `json` tags for names, `jsonschema` tags for descriptions,
// omitempty for optional fields). description's {{.Field}} placeholders
// are filled once from data (see describe), so numbers in it come from
// the code's constants.
// Input is validated against the schema and decoded strictly before run
// is called; invalid input gives the model an error result naming the
// problem.
func Typed[P any](name, description string, data any, run func(ctx context.Context, call Call, params P) Result) (Tool, error) {
	t := &typedTool[P]{name: name, description: description, data: data, run: run}
	t.once.Do(t.build)
	if t.err != nil {
		return nil, t.err
	}
	return t, nil
}

// MustTyped is Typed for tools defined in code, where an error is a
// programming mistake. Its schema and description are built on first
// use (Spec or Run), not here: the built-in registry is made while the
// sidebar first opens, and inferring and resolving every schema there
// took 1.4–5.6 ms of the first toggle. A mistake panics at first use,
// which every test run reaches (TestEveryBuiltinToolBuilds).
func MustTyped[P any](name, description string, data any, run func(ctx context.Context, call Call, params P) Result) Tool {
	return &typedTool[P]{name: name, description: description, data: data, run: run}
}

type typedTool[P any] struct {
	name, description string
	data              any
	run               func(ctx context.Context, call Call, params P) Result

	once     sync.Once // builds spec and resolved, or err
	spec     Spec
	resolved *jsonschema.Resolved
	err      error
}

// Name is the tool's name, known without building its spec.
func (t *typedTool[P]) Name() string { return t.name }

// schemaBuilds counts built schemas (tests: making the registry builds
// none).
var schemaBuilds atomic.Int64

// build infers the schema from P and fills the description (once).
func (t *typedTool[P]) build() {
	schemaBuilds.Add(1)
	schema, err := jsonschema.For[P](nil)
	if err != nil {
		t.err = fmt.Errorf("tool %s: schema: %w", t.name, err)
		return
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		t.err = fmt.Errorf("tool %s: schema: %w", t.name, err)
		return
	}
	t.resolved, err = schema.Resolve(nil)
	if err != nil {
		t.err = fmt.Errorf("tool %s: schema: %w", t.name, err)
		return
	}
	desc, err := describe(t.description, t.data)
	if err != nil {
		t.err = fmt.Errorf("tool %s: description: %w", t.name, err)
		return
	}
	t.spec = Spec{Name: t.name, Description: strings.TrimSpace(desc), InputSchema: raw}
}

// built builds the tool on first use; a MustTyped tool whose schema or
// description is broken panics (the registry recovers a Run's panic).
func (t *typedTool[P]) built() {
	t.once.Do(t.build)
	if t.err != nil {
		panic(t.err)
	}
}

func (t *typedTool[P]) Spec() Spec {
	t.built()
	return t.spec
}

func (t *typedTool[P]) Run(ctx context.Context, call Call) Result {
	t.built()
	params, err := decodeInput[P](call.Input, t.resolved)
	if err != nil {
		return Errorf(fmt.Sprintf("invalid input for %s: %v", t.spec.Name, err))
	}
	return t.run(ctx, call, params)
}

func decodeInput[P any](input json.RawMessage, resolved *jsonschema.Resolved) (P, error) {
	var params P
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage("{}")
	}
	var generic any
	if err := json.Unmarshal(input, &generic); err != nil {
		return params, fmt.Errorf("input is not valid JSON: %v", err)
	}
	// The provider adapters wrap arguments that were not a JSON object
	// this way, so the model learns what it sent.
	if excerpt, bad := InvalidInput(input); bad {
		return params, fmt.Errorf("your input was not valid JSON (a JSON object was expected); it was: %s", excerpt)
	}
	if err := resolved.Validate(generic); err != nil {
		return params, err
	}
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&params); err != nil {
		return params, err
	}
	return params, nil
}
