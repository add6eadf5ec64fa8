// Command hookfloor is the floor of a hook written in Go, for "make bench": the least a Go
// hook process can do. It reads the event from stdin and, as a Stop hook, blocks 9 times
// (counting in the file it is given), then lets the stop through; as any other hook it
// allows. Nothing of ralph-loop uses it.
//
//	hookfloor stop COUNTFILE   a Stop hook
//	hookfloor allow            any other hook
package main

import (
	"io"
	"os"
	"strconv"
	"strings"
)

func main() {
	if _, err := io.Copy(io.Discard, os.Stdin); err != nil {
		os.Stderr.WriteString("hookfloor: " + err.Error() + "\n")
		os.Exit(1)
	}
	if len(os.Args) < 3 || os.Args[1] != "stop" {
		return
	}
	data, _ := os.ReadFile(os.Args[2])
	n, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if n < 9 {
		if err := os.WriteFile(os.Args[2], []byte(strconv.Itoa(n+1)), 0o644); err != nil {
			os.Stderr.WriteString("hookfloor: " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString(`{"decision":"block","reason":"Go on with the task."}` + "\n")
	}
}
