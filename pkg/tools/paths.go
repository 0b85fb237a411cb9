package tools

import "os"

// userHomeDir expands ~ in tool paths (a variable so tests could stub it).
var userHomeDir = os.UserHomeDir
