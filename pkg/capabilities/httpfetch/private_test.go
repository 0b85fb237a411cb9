package httpfetch

import (
	"net/netip"
	"testing"
)

func TestIsPrivate(t *testing.T) {
	for _, tc := range []struct {
		addr    string
		private bool
	}{
		{"127.0.0.1", true},
		{"127.255.255.254", true},
		{"::1", true},
		{"10.0.0.1", true},
		{"10.255.255.255", true},
		{"172.16.0.1", true},
		{"172.31.255.255", true},
		{"172.32.0.1", false},
		{"172.15.255.255", false},
		{"192.168.1.1", true},
		{"192.169.0.1", false},
		{"fc00::1", true},
		{"fd12:3456::1", true},
		{"169.254.169.254", true},
		{"169.254.0.1", true},
		{"fe80::1", true},
		{"0.0.0.0", true},
		{"0.1.2.3", true},
		{"::", true},
		{"224.0.0.1", true},
		{"239.255.255.250", true},
		{"ff02::1", true},
		{"ff0e::1", true},
		{"100.64.0.1", true},
		{"100.127.255.255", true},
		{"100.128.0.1", false},
		{"100.63.255.255", false},
		{"::ffff:127.0.0.1", true},
		{"::ffff:10.1.2.3", true},
		{"::ffff:169.254.169.254", true},
		{"::ffff:100.64.0.1", true},
		{"::ffff:0.0.0.0", true},
		{"::ffff:8.8.8.8", false},
		{"8.8.8.8", false},
		{"1.1.1.1", false},
		{"93.184.216.34", false},
		{"2606:4700::1111", false},
		{"2001:4860:4860::8888", false},
	} {
		if got := IsPrivate(netip.MustParseAddr(tc.addr)); got != tc.private {
			t.Errorf("IsPrivate(%s) = %v, want %v", tc.addr, got, tc.private)
		}
	}
	if !IsPrivate(netip.Addr{}) {
		t.Error("the zero Addr must count as private")
	}
}
