// Command hookfloor is the floor of a hook written in Go, for "make bench": the least a Go
// hook process can do. It reads the event from stdin and, as a Stop hook, blocks 9 times
// (counting in the file it is given), then lets the stop through; as any other hook it
// allows. Nothing of ralph-loop uses it.
//
// Its signed modes are the least a Go hook that keeps a loop's state as ralph-loop must
// can do: the state a file signed with a key (HMAC-SHA256), read and verified by every hook,
// and changed by a Stop only under a lock, written whole beside the old one and renamed over
// it; the Stop also reads the end of the host's transcript for the promise. What ralph-loop
// does besides (the keep's copy, the witnesses, the in-flight mark, who sent the event, the
// event log) it does not.
//
//	hookfloor stop COUNTFILE     a Stop hook
//	hookfloor allow              any other hook
//	hookfloor signed-stop DIR    a Stop hook keeping its signed state in DIR
//	hookfloor signed-check DIR   any other hook: the state read and verified, then allowed
package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

func main() {
	if len(os.Args) >= 3 && os.Args[1] == "signed-stop" {
		in, err := io.ReadAll(os.Stdin)
		if err == nil {
			err = signedStop(os.Args[2], in, os.Stdout)
		}
		if err != nil {
			fail(err)
		}
		return
	}
	if _, err := io.Copy(io.Discard, os.Stdin); err != nil {
		fail(err)
	}
	if len(os.Args) < 3 {
		return
	}
	switch os.Args[1] {
	case "stop":
		countStop(os.Args[2])
	case "signed-check":
		if _, _, err := readState(os.Args[2], false); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	os.Stderr.WriteString("hookfloor: " + err.Error() + "\n")
	os.Exit(1)
}

const block = `{"decision":"block","reason":"Go on with the task."}` + "\n"

// countStop blocks 9 times, counting in file.
func countStop(file string) {
	data, _ := os.ReadFile(file)
	n, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if n < 9 {
		if err := os.WriteFile(file, []byte(strconv.Itoa(n+1)), 0o644); err != nil {
			fail(err)
		}
		os.Stdout.WriteString(block)
	}
}

// state is the signed state: the stops blocked so far, and the MAC of that count.
type state struct {
	Count int    `json:"count"`
	MAC   string `json:"mac"`
}

// readState reads and verifies dir's state (a missing one counts 0) and returns it with the
// key; with create, a missing key is made.
func readState(dir string, create bool) (state, []byte, error) {
	key, err := os.ReadFile(filepath.Join(dir, "key"))
	if errors.Is(err, fs.ErrNotExist) && create {
		key = make([]byte, 32)
		rand.Read(key)
		err = os.WriteFile(filepath.Join(dir, "key"), key, 0o600)
	}
	if err != nil {
		return state{}, nil, err
	}
	var s state
	data, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return s, key, nil
	}
	if err == nil {
		err = json.Unmarshal(data, &s)
	}
	if err == nil && !hmac.Equal([]byte(s.MAC), []byte(mac(key, s.Count))) {
		err = errors.New("the state's signature does not verify")
	}
	return s, key, err
}

func mac(key []byte, count int) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(strconv.Itoa(count)))
	return hex.EncodeToString(m.Sum(nil))
}

// signedStop blocks 9 times (writing the block to out), counting in dir's signed state
// under its lock, unless the end of the transcript holds the promise.
func signedStop(dir string, in []byte, out io.Writer) error {
	var ev struct {
		TranscriptPath string `json:"transcript_path"`
	}
	if err := json.Unmarshal(in, &ev); err != nil {
		return err
	}
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	s, key, err := readState(dir, true)
	if err != nil {
		return err
	}
	if done, err := promised(ev.TranscriptPath); err != nil || done || s.Count >= 9 {
		return err
	}
	s.Count++
	s.MAC = mac(key, s.Count)
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, ".state.json.tmp")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, "state.json")); err != nil {
		return err
	}
	_, err = io.WriteString(out, block)
	return err
}

// promised reports whether the last 64 KiB of the transcript hold the promise.
func promised(path string) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // not written yet
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	buf := make([]byte, min(fi.Size(), 64<<10))
	if _, err := f.ReadAt(buf, fi.Size()-int64(len(buf))); err != nil && err != io.EOF {
		return false, err
	}
	return bytes.Contains(buf, []byte("<promise>DONE</promise>")), nil
}
