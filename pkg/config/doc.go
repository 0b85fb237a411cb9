// Package config decodes and validates the options the Lua side holds
// (require("magenta").setup(opts)), as the host reads them over RPC.
//
// The Lua side validates first and gives the user the error; the host
// validates again because anything arriving over RPC is untrusted input.
package config
