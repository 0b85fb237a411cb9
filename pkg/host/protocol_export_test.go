package host

// EventNames and RequestNames are the names of the host's tables, sorted,
// for the test that holds lua/magenta/protocol.lua to them.
func EventNames() []string { return names(events) }

func RequestNames() []string { return names(requests) }
