package tools

import (
	"encoding/json"
	"os"
)

// Small indirections so tool code reads cleanly and tests can see them.
var (
	userHomeDir   = os.UserHomeDir
	jsonUnmarshal = json.Unmarshal
)
