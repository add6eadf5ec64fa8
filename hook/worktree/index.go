package worktree

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
)

// IndexPrefix starts the work tree's record that Snapshot returns for the stall breaker
// alone (Store.Objects set): a fingerprint of the index git add wrote, not a tree id.
const IndexPrefix = "index:"

// errIndex means an index file cannot be fingerprinted here (a format this reader does not
// take): the caller asks git for the tree instead.
var errIndex = errors.New("index not fingerprinted")

// indexFingerprint reads the index file git add wrote (format 2, 3 or 4; oidLen 20 for
// sha1, 32 for sha256) and returns a fingerprint of what it records of each file: path,
// mode, stage and object id. Two indexes of the same files with the same contents have the
// same fingerprint whatever their stat data, and so do the trees git write-tree would make
// of them: the stall breaker compares it as it would compare trees, without a git process.
// A split index (its entries are only the changes to a shared one) is errIndex.
func indexFingerprint(data []byte, oidLen int) (string, error) {
	if len(data) < 12+oidLen || string(data[:4]) != "DIRC" {
		return "", fmt.Errorf("%w: no index header", errIndex)
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return "", fmt.Errorf("%w: version %d", errIndex, version)
	}
	n := binary.BigEndian.Uint32(data[8:12])
	body := data[:len(data)-oidLen] // the trailing checksum is no entry
	h := sha256.New()
	var num [4]byte
	binary.BigEndian.PutUint32(num[:], n)
	h.Write(num[:])
	p := 12
	var prev []byte
	fixed := 40 + oidLen + 2 // stat data, object id, flags
	for i := uint32(0); i < n; i++ {
		start := p
		if p+fixed > len(body) {
			return "", fmt.Errorf("%w: entry %d cut short", errIndex, i)
		}
		mode := body[p+24 : p+28]
		oid := body[p+40 : p+40+oidLen]
		flags := binary.BigEndian.Uint16(body[p+40+oidLen:])
		p += fixed
		var ext uint16
		if flags&0x4000 != 0 {
			if version < 3 || p+2 > len(body) {
				return "", fmt.Errorf("%w: entry %d: extended flags", errIndex, i)
			}
			ext = binary.BigEndian.Uint16(body[p:])
			p += 2
		}
		var path []byte
		if version == 4 {
			strip, m, ok := offsetVarint(body[p:])
			if !ok || strip > uint64(len(prev)) {
				return "", fmt.Errorf("%w: entry %d: path", errIndex, i)
			}
			p += m
			end := bytes.IndexByte(body[p:], 0)
			if end < 0 {
				return "", fmt.Errorf("%w: entry %d: path", errIndex, i)
			}
			path = append(append([]byte(nil), prev[:uint64(len(prev))-strip]...), body[p:p+end]...)
			p += end + 1
		} else {
			end := bytes.IndexByte(body[p:], 0)
			if end < 0 {
				return "", fmt.Errorf("%w: entry %d: path", errIndex, i)
			}
			path = body[p : p+end]
			p += end + 1
			// 1 to 8 NULs end the entry at a multiple of 8 bytes from its start.
			for (p-start)%8 != 0 {
				p++
			}
		}
		prev = path
		var rec [4]byte
		binary.BigEndian.PutUint16(rec[:2], flags&0x3000) // the stage
		binary.BigEndian.PutUint16(rec[2:], ext&0x6000)   // skip-worktree, intent-to-add
		h.Write(mode)
		h.Write(rec[:])
		h.Write(oid)
		h.Write(path)
		h.Write([]byte{0})
	}
	if p > len(body) {
		return "", fmt.Errorf("%w: entries past the end", errIndex)
	}
	// Extensions: a shared index ("link") holds entries this file does not.
	for p+8 <= len(body) {
		sig := string(body[p : p+4])
		size := int(binary.BigEndian.Uint32(body[p+4 : p+8]))
		if sig == "link" || sig == "sdir" {
			return "", fmt.Errorf("%w: %s extension", errIndex, sig)
		}
		if size < 0 || p+8+size > len(body) {
			break
		}
		p += 8 + size
	}
	return IndexPrefix + hex.EncodeToString(h.Sum(nil)), nil
}

// offsetVarint reads the variable-length number of index format 4's path compression (git's
// offset encoding): the number and how many bytes it took.
func offsetVarint(b []byte) (uint64, int, bool) {
	if len(b) == 0 {
		return 0, 0, false
	}
	c := b[0]
	v := uint64(c & 127)
	i := 1
	for c&128 != 0 {
		if i >= len(b) || i > 9 {
			return 0, 0, false
		}
		c = b[i]
		i++
		v = ((v + 1) << 7) | uint64(c&127)
	}
	return v, i, true
}

// readIndexFingerprint is indexFingerprint of the index file at path.
func readIndexFingerprint(path string, oidLen int) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return indexFingerprint(data, oidLen)
}
