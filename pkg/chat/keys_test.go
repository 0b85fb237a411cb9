package chat

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/magenta-nvim/magenta/pkg/provider"
	"github.com/magenta-nvim/magenta/pkg/tools"
)

func TestInvalidArgumentsKeyAgrees(t *testing.T) {
	assert.Equal(t, provider.InvalidArgumentsKey, tools.InvalidArgumentsKey)
}
