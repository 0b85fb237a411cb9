package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestThreadsOptions(t *testing.T) {
	o, err := Decode([]byte(`{"profiles":[{"name":"a","provider":"anthropic","model":"m"}]}`))
	require.NoError(t, err)
	assert.True(t, o.Threads.Persisted())
	assert.Equal(t, DefaultThreadMaxAgeDays*24*time.Hour, o.Threads.MaxAgeDuration())
	o, err = Decode([]byte(`{"profiles":[{"name":"a","provider":"anthropic","model":"m"}],"threads":{"persist":false,"maxAge":0}}`))
	require.NoError(t, err)
	assert.False(t, o.Threads.Persisted())
	assert.Zero(t, o.Threads.MaxAgeDuration())
	_, err = Decode([]byte(`{"profiles":[{"name":"a","provider":"anthropic","model":"m"}],"threads":{"maxAge":-1}}`))
	assert.ErrorContains(t, err, "threads.maxAge")
}
