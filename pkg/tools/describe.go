package tools

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
)

// placeholder matches {{.Name}} in a tool description.
var placeholder = regexp.MustCompile(`\{\{\s*\.([A-Za-z][A-Za-z0-9]*)\s*\}\}`)

// describe fills the {{.Name}} placeholders of a tool description with
// the fields of data (a struct or a pointer to one, or a map keyed by
// string), so the numbers the model reads are the code's constants. A
// name data lacks, or any other {{…}} syntax, is an error.
//
// This is deliberately not text/template: a template engine that calls
// methods by name keeps the linker from dropping any exported method of
// any reachable type, which made the host binary 16 MB larger and its
// first toggle ~4 MB heavier in resident memory.
func describe(text string, data any) (string, error) {
	value := reflect.Indirect(reflect.ValueOf(data))
	var missing []string
	out := placeholder.ReplaceAllStringFunc(text, func(m string) string {
		name := placeholder.FindStringSubmatch(m)[1]
		if v, ok := lookupField(value, name); ok {
			return fmt.Sprint(v)
		}
		missing = append(missing, name)
		return m
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("no value for %s", strings.Join(missing, ", "))
	}
	if i := strings.Index(out, "{{"); i >= 0 {
		end := min(len(out), i+40)
		return "", fmt.Errorf("unsupported placeholder at %q", out[i:end])
	}
	return out, nil
}

// lookupField returns the field or map entry name of v.
func lookupField(v reflect.Value, name string) (any, bool) {
	switch v.Kind() {
	case reflect.Struct:
		f := v.FieldByName(name)
		if !f.IsValid() || !f.CanInterface() {
			return nil, false
		}
		return f.Interface(), true
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return nil, false
		}
		e := v.MapIndex(reflect.ValueOf(name).Convert(v.Type().Key()))
		if !e.IsValid() {
			return nil, false
		}
		return e.Interface(), true
	}
	return nil, false
}
