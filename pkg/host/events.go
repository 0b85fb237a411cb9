package host

import (
	"fmt"
	"math"
	"reflect"
	"strings"
)

// event is a decoded MagentaEvent or MagentaRequest call: a name and a
// payload map, as sent by lua/magenta/host.lua. The payload is decoded
// into the name's struct (protocol.go) by decodePayload.
type event struct {
	name    string
	payload map[string]any
}

// decodeEvent checks the shape of RPC arguments; anything else is an
// error, never a panic.
func decodeEvent(args []any) (event, error) {
	if len(args) == 0 {
		return event{}, fmt.Errorf("event without a name")
	}
	name, ok := args[0].(string)
	if !ok || name == "" {
		return event{}, fmt.Errorf("event name must be a string, got %T", args[0])
	}
	ev := event{name: name, payload: map[string]any{}}
	if len(args) > 1 && args[1] != nil {
		switch p := args[1].(type) {
		case map[string]any:
			ev.payload = p
		case []any:
			if len(p) != 0 { // Lua's empty table arrives as an array
				return event{}, fmt.Errorf("event %q: payload must be a table of named fields", name)
			}
		default:
			return event{}, fmt.Errorf("event %q: payload must be a table, got %T", name, args[1])
		}
	}
	return ev, nil
}

// payloadValue is a field type that decodes itself, for shapes the
// generic rules below do not cover (attachments skip malformed entries).
type payloadValue interface {
	decodePayload(v any) error
}

// decodePayload fills the struct dst points to from a payload map. The
// payload arrives already decoded into any (go-client cannot decode it
// straight into a struct: which struct depends on the name sent beside
// it, and a value that does not fit a handler's declared type drops the
// connection; see Register), so this walks the struct's `payload:"name"`
// tags instead:
//
//   - a field absent or nil (vim.NIL) keeps its zero value, unless the
//     tag says "name,required";
//   - a value of the wrong type is an error naming the field; fields the
//     struct does not name are ignored;
//   - string takes msgpack str or bin (raw terminal input is not always
//     UTF-8), int takes any msgpack number (a Lua float is truncated, as
//     before), []string takes a list of strings, []any and any take the
//     value as it came, and a payloadValue decodes itself.
func decodePayload(payload map[string]any, dst any) error {
	v := reflect.ValueOf(dst).Elem()
	t := v.Type()
	for i := range t.NumField() {
		name, opt, _ := strings.Cut(t.Field(i).Tag.Get("payload"), ",")
		if name == "" {
			continue
		}
		raw := payload[name]
		if raw == nil {
			if opt == "required" {
				return fmt.Errorf("field %q is missing", name)
			}
			continue
		}
		if err := decodeValue(v.Field(i), raw); err != nil {
			return fmt.Errorf("field %q: %w", name, err)
		}
	}
	return nil
}

func decodeValue(dst reflect.Value, raw any) error {
	if d, ok := dst.Addr().Interface().(payloadValue); ok {
		return d.decodePayload(raw)
	}
	switch dst.Kind() {
	case reflect.String:
		switch s := raw.(type) {
		case string:
			dst.SetString(s)
			return nil
		case []byte:
			dst.SetString(string(s))
			return nil
		}
		return wrongType("a string", raw)
	case reflect.Int:
		n, err := payloadInt(raw)
		if err != nil {
			return err
		}
		dst.SetInt(int64(n))
		return nil
	case reflect.Bool:
		b, ok := raw.(bool)
		if !ok {
			return wrongType("a boolean", raw)
		}
		dst.SetBool(b)
		return nil
	case reflect.Interface:
		dst.Set(reflect.ValueOf(raw))
		return nil
	case reflect.Slice:
		list, ok := raw.([]any)
		if !ok {
			return wrongType("a list", raw)
		}
		switch dst.Type().Elem().Kind() {
		case reflect.Interface:
			dst.Set(reflect.ValueOf(list))
			return nil
		case reflect.String:
			out := make([]string, len(list))
			for i, v := range list {
				s, ok := v.(string)
				if !ok {
					return fmt.Errorf("item %d: %w", i+1, wrongType("a string", v))
				}
				out[i] = s
			}
			dst.Set(reflect.ValueOf(out))
			return nil
		}
	}
	// A payload struct with a field type this does not know: a bug that
	// TestPayloadStructsDecode catches before it ships.
	return fmt.Errorf("unsupported field type %s", dst.Type())
}

// payloadInt reads an integer; msgpack integers arrive as int64 or
// uint64 depending on their sign and size, and Lua numbers that are not
// whole as float64.
func payloadInt(raw any) (int, error) {
	switch v := raw.(type) {
	case int64:
		return int(v), nil
	case uint64:
		if v <= math.MaxInt64 {
			return int(v), nil
		}
		return 0, fmt.Errorf("%d is out of range", v)
	case int:
		return v, nil
	case float64:
		return int(v), nil
	}
	return 0, wrongType("a number", raw)
}

func wrongType(want string, got any) error {
	return fmt.Errorf("want %s, got %T", want, got)
}

// nonEmpty drops the empty strings of a list of paths, as the lists the
// host read before its payloads were typed did.
func nonEmpty(list []string) []string {
	out := make([]string, 0, len(list))
	for _, s := range list {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
