package localshell

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// emulated feeds reads to a terminal (not attached to any process) and
// returns every final line and the screen; bulk false writes everything
// through the emulator.
func emulated(t testing.TB, reads [][]byte, bulk bool) (string, []string) {
	t.Helper()
	r, w, err := os.Pipe() // stands in for the master: replies go nowhere
	require.NoError(t, err)
	defer r.Close()
	term := newTerminal(w, 24, 100)
	defer term.close()
	var text []byte
	for _, p := range reads {
		if bulk {
			text = append(text, term.feed(p)...)
		} else {
			term.mu.Lock()
			text = term.write(p, text)
			term.mu.Unlock()
		}
	}
	return string(text), term.Screen()
}

// TestBulkMatchesTheEmulator: plain lines that bypass the emulator give
// the same text and screen as the emulator does, whatever was on the
// screen before and wherever the reads are cut.
func TestBulkMatchesTheEmulator(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	taken := 0 // rounds where the shortcut was taken
	defer func() { assert.GreaterOrEqual(t, taken, 4, "the shortcut was hardly taken: nothing was compared") }()
	for round := range 12 {
		var b strings.Builder
		// Something on the screen first: plain, wide, tabbed; every
		// third round an escape sequence (the shortcut is then off).
		fmt.Fprintf(&b, "header %d\r\n日本語\tx\bY\r\n", round)
		if round%3 == 0 {
			b.WriteString("\x1b[5;1H\x1b[1mmoved\x1b[0m\r\n")
		}
		for i := range 200 + rng.IntN(1000) {
			switch rng.IntN(10) {
			case 0:
				b.WriteString("\r\n")
			case 1:
				b.WriteString(strings.Repeat("w", 90+rng.IntN(250)) + "\r\n")
			case 2:
				b.WriteString("  spaced   \r\n")
			default:
				fmt.Fprintf(&b, "line %d\r\n", i)
			}
			if rng.IntN(200) == 0 {
				b.WriteString("progress\rdone\r\n\ttab\r\n")
			}
		}
		b.WriteString("tail")
		all := []byte(b.String())
		var reads [][]byte
		for len(all) > 0 {
			n := min(len(all), 1+rng.IntN(8000))
			reads = append(reads, all[:n])
			all = all[n:]
		}
		wantText, wantScreen := emulated(t, reads, false)
		bulked := bulkCount.Load()
		gotText, gotScreen := emulated(t, reads, true)
		if round%3 != 0 && bulkCount.Load() > bulked {
			taken++
		}
		require.Equal(t, wantText, gotText, "round %d", round)
		require.Equal(t, wantScreen, gotScreen, "round %d", round)
	}
}

func TestPlainLines(t *testing.T) {
	for _, tc := range []struct {
		in         string
		end, lines int
	}{
		{"a\r\nb\r\n", 6, 2},
		{"a\r\nb", 3, 1},
		{"a\r\nb\r", 3, 1},
		{"a\nb\r\n", 0, 0},
		{"a\r\n\tb\r\n", 3, 1},
		{"a\r\n\x1b[mb\r\n", 3, 1},
		{"", 0, 0},
	} {
		end, lines := plainLines([]byte(tc.in))
		assert.Equal(t, []int{tc.end, tc.lines}, []int{end, lines}, "%q", tc.in)
	}
}

// BenchmarkTerminalFeed measures the emulator path alone on the output
// of `seq 1 100000` as the PTY delivers it (CRLF), in 32 KB reads.
func BenchmarkTerminalFeed(b *testing.B) {
	var sb strings.Builder
	for i := 1; i <= 100000; i++ {
		fmt.Fprintf(&sb, "%d\r\n", i)
	}
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		r, w, err := os.Pipe()
		if err != nil {
			b.Fatal(err)
		}
		term := newTerminal(w, 24, 100)
		for p := data; len(p) > 0; {
			n := min(len(p), ptyReadSize)
			term.feed(p[:n])
			p = p[n:]
		}
		term.close()
		r.Close()
	}
}

// FuzzBulkMatchesTheEmulator: whatever a command wrote before (escape
// sequences, scroll regions, modes), a read of plain lines gives the
// same text and screen with the shortcut as through the emulator.
func FuzzBulkMatchesTheEmulator(f *testing.F) {
	f.Add([]byte("hello\r\n"), uint8(100), uint8(3))
	f.Add([]byte("\x1b[5;10r"), uint8(120), uint8(0))
	f.Add([]byte("\x1b[?7l"), uint8(200), uint8(1))
	f.Add([]byte("\x1b[4h"), uint8(90), uint8(2))
	f.Add([]byte("\x1b[?6h\x1b[3;20r"), uint8(150), uint8(4))
	f.Add([]byte("\x1b[20l\x1b[?1049h"), uint8(100), uint8(5))
	f.Fuzz(func(t *testing.T, before []byte, nLines, width uint8) {
		var b strings.Builder
		for i := range int(nLines) + 24 {
			fmt.Fprintf(&b, "%s%d\r\n", strings.Repeat("x", int(width)*(i%3)), i)
		}
		reads := [][]byte{before, []byte(b.String())}
		wantText, wantScreen := emulated(t, reads, false)
		gotText, gotScreen := emulated(t, reads, true)
		if wantText != gotText {
			t.Fatalf("text differs:\nwant %q\ngot  %q", wantText, gotText)
		}
		assert.Equal(t, wantScreen, gotScreen)
	})
}

// FuzzTerminalFeed feeds arbitrary output (the command's: untrusted) to
// a terminal, resizes it, and reads its screen and final text. A panic
// of the emulator is contained (the text says so); none is expected.
func FuzzTerminalFeed(f *testing.F) {
	f.Add([]byte("plain\r\n"), []byte("\x1b[31mred\x1b[0m\r\n"), uint8(10), uint8(40))
	f.Add([]byte("\x1b[?1049h\x1b[2J\x1b[H"), []byte("\x1b[6n\x1b[c"), uint8(1), uint8(1))
	f.Add([]byte("\x1b]8;;http://x\x07link\x1b]8;;\x07"), []byte("\x1bP$q\"p\x1b\\"), uint8(200), uint8(5))
	f.Add([]byte("日本語\t\b\x0e\x0f\x9b1m"), []byte("\x1b[5;3r\x1b[?6h\r\n\r\n"), uint8(3), uint8(250))
	f.Fuzz(func(t *testing.T, a, b []byte, rows, cols uint8) {
		r, w, err := os.Pipe()
		require.NoError(t, err)
		defer r.Close()
		go func() { _, _ = io.Copy(io.Discard, r) }() // replies
		term := newTerminal(w, 24, 100)
		text := term.feed(a)
		_ = term.Resize(int(rows)+1, int(cols)+1)
		text = append(text, term.feed(b)...)
		_ = term.Screen()
		text = append(text, term.finalText()...)
		term.close()
		assert.NotContains(t, string(text), "[magenta: the terminal emulator failed")
	})
}
