package localshell

// maxParamDigits bounds the digits of one numeric parameter of a control
// sequence on its way to the emulator. Its work grows with some
// parameters: "ESC[99999999b" (repeat the last character) kept it busy
// for 38 s, "ESC[99999999I" (tab forward) for 0.8 s. A command's output
// is untrusted: one such sequence would hold up the emulator, and with
// it the end of the call, well past the timeout. No parameter a terminal
// honours needs more than four digits; the rest are dropped ("123456"
// reads as "1234").
const maxParamDigits = 4

// paramClamp cuts long numeric parameters of CSI sequences, across
// reads. The zero value is ready for use.
type paramClamp struct {
	state  uint8 // ground, afterEsc, inCSI
	digits int   // digits of the current parameter so far
}

const (
	clampGround = iota
	clampEsc
	clampCSI
)

// filter returns p with the digits past maxParamDigits of each CSI
// parameter removed; p itself when there is nothing to remove.
func (c *paramClamp) filter(p []byte) []byte {
	var out []byte // nil until a byte is dropped
	for i, b := range p {
		drop := false
		switch c.state {
		case clampGround:
			if b == 0x1b {
				c.state = clampEsc
			}
		case clampEsc:
			c.state = clampGround
			if b == '[' {
				c.state, c.digits = clampCSI, 0
			} else if b == 0x1b {
				c.state = clampEsc
			}
		case clampCSI:
			switch {
			case b >= '0' && b <= '9':
				c.digits++
				drop = c.digits > maxParamDigits
			case b >= 0x20 && b <= 0x3f: // separators, private markers, intermediates
				c.digits = 0
			case b == 0x1b:
				c.state = clampEsc
			case b >= 0x40 && b <= 0x7e: // final byte
				c.state = clampGround
			default: // a control inside the sequence: executed, sequence goes on
			}
		}
		if drop && out == nil {
			out = append(make([]byte, 0, len(p)), p[:i]...)
		}
		if out != nil && !drop {
			out = append(out, b)
		}
	}
	if out == nil {
		return p
	}
	return out
}
