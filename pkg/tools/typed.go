package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

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
	schema, err := jsonschema.For[P](nil)
	if err != nil {
		return nil, fmt.Errorf("tool %s: schema: %w", name, err)
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("tool %s: schema: %w", name, err)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("tool %s: schema: %w", name, err)
	}
	desc, err := describe(description, data)
	if err != nil {
		return nil, fmt.Errorf("tool %s: description: %w", name, err)
	}
	return &typedTool[P]{
		spec:     Spec{Name: name, Description: strings.TrimSpace(desc), InputSchema: raw},
		resolved: resolved,
		run:      run,
	}, nil
}

// MustTyped is Typed for tools defined at init time, where an error is a
// programming mistake caught by every test run.
func MustTyped[P any](name, description string, data any, run func(ctx context.Context, call Call, params P) Result) Tool {
	t, err := Typed(name, description, data, run)
	if err != nil {
		panic(err)
	}
	return t
}

type typedTool[P any] struct {
	spec     Spec
	resolved *jsonschema.Resolved
	run      func(ctx context.Context, call Call, params P) Result
}

func (t *typedTool[P]) Spec() Spec { return t.spec }

func (t *typedTool[P]) Run(ctx context.Context, call Call) Result {
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
