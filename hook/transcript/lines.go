package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// MaxGrepLine bounds the lines Grep hands over; longer ones are skipped unread.
const MaxGrepLine = 1 << 20

// Grep calls fn, in order, with each line of the transcript at path that contains needle
// (lines over MaxGrepLine bytes are skipped), holding no more than one line at a time.
func Grep(path string, needle []byte, fn func(line []byte)) error {
	f, _, err := Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var line []byte
	long := false
	for {
		chunk, err := r.ReadSlice('\n')
		switch {
		case long || len(line)+len(chunk) > MaxGrepLine:
			long, line = true, line[:0]
		default:
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if !long && bytes.Contains(line, needle) {
			fn(line)
		}
		line, long = line[:0], false
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
