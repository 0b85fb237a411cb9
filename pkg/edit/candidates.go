package edit

import (
	"cmp"
	"slices"
	"strings"
)

// Candidate is a region of the file that resembles an old_string that was
// not found.
type Candidate struct {
	Line  int     // 1-based start line
	Text  string  // the candidate region, as in the file (no final line terminator)
	Score float64 // 0..1 similarity; 1 means equal apart from whitespace
}

const (
	maxCandidates = 3
	minScore      = 0.5 // candidates must score strictly above this

	// Bounds on the candidate search, counted in line comparisons (about
	// file lines × old_string lines). Up to fullWork (and fullMaxLines
	// file lines) lines are compared by character-bigram similarity; up to
	// maxWork only by equality after whitespace normalisation, which is a
	// cheap integer comparison; beyond that no candidates are searched for
	// at all, so a huge file or old_string never makes Apply slow.
	fullWork     = 2_000_000
	fullMaxLines = 20_000
	maxWork      = 20_000_000
	maxLineRunes = 200 // longer lines are compared by their first runes only
)

// lineInfo is one line prepared for comparison.
type lineInfo struct {
	start, end int      // byte range in the text, without the line terminator
	raw, norm  int      // interned ids: text without "\r"; whitespace runs collapsed
	bigrams    []uint64 // sorted character bigrams of the normalised text (full mode)
}

type scanner struct {
	ids  map[string]int
	full bool
}

func (s *scanner) intern(t string) int {
	id, ok := s.ids[t]
	if !ok {
		id = len(s.ids)
		s.ids[t] = id
	}
	return id
}

// lines splits text into lines ("\n" terminated, "\r" before it ignored
// for comparison; a final terminator does not start another line).
func (s *scanner) lines(text string) []lineInfo {
	var out []lineInfo
	for start := 0; start < len(text); {
		end := strings.IndexByte(text[start:], '\n')
		next := start + end + 1
		if end < 0 {
			end, next = len(text), len(text)
		} else {
			end += start
		}
		raw := strings.TrimSuffix(text[start:end], "\r")
		norm := strings.Join(strings.Fields(raw), " ")
		li := lineInfo{start: start, end: end, raw: s.intern(raw), norm: s.intern("\x00" + norm)}
		if s.full {
			li.bigrams = bigrams(norm)
		}
		out = append(out, li)
		start = next
	}
	return out
}

func bigrams(s string) []uint64 {
	rs := []rune(s)
	if len(rs) > maxLineRunes {
		rs = rs[:maxLineRunes]
	}
	if len(rs) == 1 {
		return []uint64{uint64(rs[0])}
	}
	var out []uint64
	for i := 0; i+1 < len(rs); i++ {
		out = append(out, uint64(rs[i])<<32|uint64(rs[i+1]))
	}
	slices.Sort(out)
	return out
}

// sim is the similarity of two lines after trimming whitespace: 1 when
// equal apart from whitespace, otherwise (full mode) the Dice coefficient
// of their character bigrams, capped below 1, or (cheap mode) 0.
func (s *scanner) sim(a, b *lineInfo) float64 {
	if a.norm == b.norm {
		return 1
	}
	if !s.full || len(a.bigrams) == 0 || len(b.bigrams) == 0 {
		return 0
	}
	common := 0
	for i, j := 0, 0; i < len(a.bigrams) && j < len(b.bigrams); {
		switch {
		case a.bigrams[i] == b.bigrams[j]:
			common++
			i++
			j++
		case a.bigrams[i] < b.bigrams[j]:
			i++
		default:
			j++
		}
	}
	return min(0.99, 2*float64(common)/float64(len(a.bigrams)+len(b.bigrams)))
}

// region is a scored window of file lines [start, start+size).
type region struct {
	start, size int
	score       float64
}

// findCandidates compares old's lines with every window of the file of the
// same number of lines, one more and one fewer (the extra or missing line
// anywhere in the window) and returns the best maxCandidates non-overlapping
// regions scoring above minScore, best first. wsOnly[i] reports that
// candidate i equals old apart from whitespace.
func findCandidates(content, old string) (cands []Candidate, wsOnly []bool) {
	s := &scanner{ids: map[string]int{}}
	k := strings.Count(old, "\n") + 1
	n := strings.Count(content, "\n") + 1
	work := (n + 2) * k
	if work > maxWork {
		return nil, nil
	}
	s.full = work <= fullWork && n <= fullMaxLines
	ol := s.lines(toLF(old))
	fl := s.lines(content)
	k, n = len(ol), len(fl)
	if k == 0 || n == 0 {
		return nil, nil
	}

	// diag(d)[a] is the summed similarity of old lines [0, a) with file
	// lines [d, d+a): prefix sums along one diagonal of the comparison grid.
	diag := func(d int) []float64 {
		p := make([]float64, k+1)
		for a := range k {
			p[a+1] = p[a]
			if b := a + d; b >= 0 && b < n {
				p[a+1] += s.sim(&ol[a], &fl[b])
			}
		}
		return p
	}
	var regions []region
	add := func(start, size int, m float64) {
		if score := 2 * m / float64(size+k); score > minScore {
			regions = append(regions, region{start, size, score})
		}
	}
	prev, cur := diag(-1), diag(0)
	for i := 0; i < n; i++ {
		next := diag(i + 1)
		if i+k <= n { // same size
			add(i, k, cur[k])
		}
		if i+k+1 <= n { // one extra file line at window position j
			best := 0.0
			for j := 0; j <= k; j++ {
				best = max(best, cur[j]+next[k]-next[j])
			}
			add(i, k+1, best)
		}
		if k >= 2 && i+k-1 <= n { // old line j missing from the file
			best := 0.0
			for j := range k {
				best = max(best, cur[j]+prev[k]-prev[j+1])
			}
			add(i, k-1, best)
		}
		prev, cur = cur, next
	}

	slices.SortStableFunc(regions, func(x, y region) int {
		if c := cmp.Compare(y.score, x.score); c != 0 {
			return c
		}
		if c := cmp.Compare(abs(x.size-k), abs(y.size-k)); c != 0 {
			return c
		}
		return cmp.Compare(x.start, y.start)
	})
	var picked []region
	for _, r := range regions {
		if len(picked) == maxCandidates {
			break
		}
		if !slices.ContainsFunc(picked, func(p region) bool {
			return r.start < p.start+p.size && p.start < r.start+r.size
		}) {
			picked = append(picked, r)
		}
	}
	for _, r := range picked {
		cands = append(cands, Candidate{
			Line:  r.start + 1,
			Text:  strings.TrimSuffix(content[fl[r.start].start:fl[r.start+r.size-1].end], "\r"),
			Score: r.score,
		})
		wsOnly = append(wsOnly, r.size == k && r.score == 1)
	}
	return cands, wsOnly
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
