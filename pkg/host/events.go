package host

import (
	"fmt"
	"math"

	"github.com/magenta-nvim/magenta/pkg/chat/view"
)

// event is a decoded MagentaEvent or MagentaRequest call: a name and a
// payload map, as sent by lua/magenta/host.lua.
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

func (e event) str(key string) string {
	s, _ := e.payload[key].(string)
	return s
}

// bytes reads a string field that may arrive as msgpack str or bin
// (raw terminal input is not always UTF-8).
func (e event) bytes(key string) string {
	switch v := e.payload[key].(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	return ""
}

// strs reads a list of strings, skipping anything else.
func (e event) strs(key string) []string {
	list, _ := e.payload[key].([]any)
	out := make([]string, 0, len(list))
	for _, v := range list {
		if s, ok := v.(string); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}

// int reads an integer field; msgpack integers arrive as int64 or uint64
// depending on their sign and size.
func (e event) int(key string) int {
	switch v := e.payload[key].(type) {
	case int64:
		return int(v)
	case uint64:
		if v <= math.MaxInt32 {
			return int(v)
		}
	case int:
		return v
	case float64:
		return int(v)
	}
	return 0
}

func viewKey(s string) view.Key { return view.Key(s) }
