package checkpoint

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path"
	"sort"
)

// indexEntry is what a snapshot needs from one entry of the store's index.
type indexEntry struct {
	path string
	mode uint32
	size uint32 // git keeps the low 32 bits; files over MaxFileSize never get in
}

// indexEntries is the store's index, sorted by path as git sorts it (byte
// order, the order of Go's string comparison).
type indexEntries []indexEntry

// find returns the entry for p, if there is one.
func (ix indexEntries) find(p string) (indexEntry, bool) {
	i := sort.Search(len(ix), func(i int) bool { return ix[i].path >= p })
	if i < len(ix) && ix[i].path == p {
		return ix[i], true
	}
	return indexEntry{}, false
}

// totalSize sums the entries' sizes.
func (ix indexEntries) totalSize() int64 {
	var n int64
	for _, e := range ix {
		n += int64(e.size)
	}
	return n
}

// dirs lists every directory holding an entry, "" for the root, each once.
func (ix indexEntries) dirs(into map[string]bool) {
	into[""] = true
	for _, e := range ix {
		addParents(into, e.path)
	}
}

// addParents records the directories above the slash-separated path p.
func addParents(into map[string]bool, p string) {
	for d := path.Dir(p); d != "." && !into[d]; d = path.Dir(d) {
		into[d] = true
	}
}

var errIndexFormat = errors.New("unsupported index format")

// readIndex reads the store's index; a missing file is an empty index.
func readIndex(name string) (indexEntries, error) {
	b, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return parseIndex(b)
}

// parseIndex decodes the entries of a version 2 or 3 index file (git's
// Documentation/gitformat-index.txt; the store's config never asks for
// version 4 or a split index). Extensions and the trailing checksum are
// not needed and not read; the index is ours, but it is still parsed
// defensively: any inconsistency is an error, never a panic.
func parseIndex(b []byte) (indexEntries, error) {
	const hdr, fixed, oidLen = 12, 40, 20
	if len(b) < hdr || string(b[:4]) != "DIRC" {
		return nil, errIndexFormat
	}
	ver := binary.BigEndian.Uint32(b[4:8])
	if ver != 2 && ver != 3 {
		return nil, errIndexFormat
	}
	n := binary.BigEndian.Uint32(b[8:12])
	if uint64(n) > uint64(len(b))/(fixed+oidLen+2) {
		return nil, errIndexFormat
	}
	out := make(indexEntries, 0, n)
	off := hdr
	for range n {
		start := off
		if off+fixed+oidLen+2 > len(b) {
			return nil, errIndexFormat
		}
		mode := binary.BigEndian.Uint32(b[off+24 : off+28])
		size := binary.BigEndian.Uint32(b[off+36 : off+40])
		flags := binary.BigEndian.Uint16(b[off+fixed+oidLen:])
		off += fixed + oidLen + 2
		if flags&0x4000 != 0 {
			if ver < 3 || off+2 > len(b) {
				return nil, errIndexFormat
			}
			off += 2
		}
		nul := bytes.IndexByte(b[off:], 0)
		if nul < 0 {
			return nil, errIndexFormat
		}
		if l := int(flags & 0xfff); l != 0xfff && l != nul {
			return nil, errIndexFormat
		}
		name := string(b[off : off+nul])
		// The entry is NUL-padded to a multiple of 8 bytes, at least one NUL.
		off = start + (off-start+nul+8)&^7
		if off > len(b) {
			return nil, errIndexFormat
		}
		if flags&0x3000 == 0 { // stage 0 only; we never merge
			out = append(out, indexEntry{path: name, mode: mode, size: size})
		}
	}
	return out, nil
}
