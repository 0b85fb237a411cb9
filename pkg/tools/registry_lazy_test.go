package tools

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Making the built-in registry, on the first toggle's path, builds no
// schema: wrappers that embed a typed tool do not hide its name.
func TestBuiltinBuildsNoSchema(t *testing.T) {
	before := schemaBuilds.Load()
	r := Builtin(Config{})
	assert.Equal(t, before, schemaBuilds.Load(), "a schema was built while making the registry")
	_, ok := r.Tool("grep")
	assert.True(t, ok)
	r.Warm()
	assert.Greater(t, schemaBuilds.Load(), before)
}
