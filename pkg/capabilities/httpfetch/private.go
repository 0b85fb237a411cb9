package httpfetch

import "net/netip"

// nonPublic are the ranges IsPrivate reports besides those netip
// classifies itself.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),     // "this network"
	netip.MustParsePrefix("100.64.0.0/10"), // carrier-grade NAT
}

// IsPrivate reports whether a is an address a fetch should not reach
// without explicit approval: loopback, private (10/8, 172.16/12,
// 192.168/16, fc00::/7), link-local (169.254/16, which holds the cloud
// metadata address 169.254.169.254, and fe80::/10), unspecified,
// multicast, carrier-grade NAT (100.64/10) and 0.0.0.0/8. IPv4-mapped
// IPv6 addresses are judged by their IPv4 form. An invalid address is
// reported private.
func IsPrivate(a netip.Addr) bool {
	if !a.IsValid() {
		return true
	}
	a = a.Unmap()
	if a.IsLoopback() || a.IsPrivate() || a.IsUnspecified() || a.IsMulticast() ||
		a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() {
		return true
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
