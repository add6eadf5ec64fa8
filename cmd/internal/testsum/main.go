// Command testsum is how "make test" reports: it reads "go test -json" on stdin and prints
// what a person needs (each package's result, the output of a failing test, with -skips why
// a test was skipped, anything a package prints outside its tests, such as the CLIs it installs),
// and adds one line per package to a tally. "testsum -report TALLY" prints the tally, one
// line per host, and a closing "N passed, N failed, N skipped". "testsum -leftovers DIR"
// fails if the tests left a file in DIR (their temporary directory) or a process running
// from it, and kills such a process.
//
// Nothing here is used by ralph-loop itself.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ralph-loop/ralph-loop/hook/hosts"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// event is one line of "go test -json" (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// count is one package's results in the tally.
type count struct {
	Name                 string
	Pass, Fail, Skip     int
	PackageFailed        bool   `json:",omitempty"`
	PackageFailedMessage string `json:",omitempty"`
}

func main() {
	tally := flag.String("tally", "", "add each package's counts to this file")
	report := flag.String("report", "", "print the tally in this file and the closing line")
	leftovers := flag.String("leftovers", "", "fail if a file or a running process is left in this directory")
	verbose := flag.Bool("v", false, "print every line of output")
	skips := flag.Bool("skips", false, "print why each skipped test was skipped")
	as := flag.String("as", "", "count every package under this name (default: by host)")
	flag.Parse()
	switch {
	case *report != "":
		os.Exit(printReport(os.Stdout, *report))
	case *leftovers != "":
		os.Exit(checkLeftovers(os.Stdout, *leftovers))
	}
	counts, failed := summarize(os.Stdin, os.Stdout, *verbose, *skips)
	if *tally != "" {
		f, err := os.OpenFile(*tally, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testsum:", err)
			os.Exit(1)
		}
		enc := json.NewEncoder(f)
		for _, c := range counts {
			if *as != "" {
				if strings.Contains(c.Name, "/cmd/internal/e2e") {
					continue // its tests skip here, and run (and are counted) in "make e2e"
				}
				c.Name = *as
			}
			enc.Encode(c)
		}
		f.Close()
	}
	if failed {
		os.Exit(1)
	}
}

// summarize copies the report of a go test -json run to w and counts the top-level tests
// of each package. failed reports a failed test or package (a build error included).
func summarize(r io.Reader, w io.Writer, verbose, skips bool) (counts []count, failed bool) {
	byPkg := map[string]*count{}
	var order []string
	buf := map[string][]string{} // a running test's output, printed if it fails or skips
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev event
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Package == "" {
			fmt.Fprintln(w, sc.Text()) // not an event: go itself speaking
			continue
		}
		c := byPkg[ev.Package]
		if c == nil {
			c = &count{Name: ev.Package}
			byPkg[ev.Package] = c
			order = append(order, ev.Package)
		}
		key := ev.Package + " " + ev.Test
		top := ev.Test != "" && !strings.Contains(ev.Test, "/")
		switch ev.Action {
		case "output":
			switch {
			case verbose:
				fmt.Fprint(w, ev.Output)
			case ev.Test == "":
				// Package-level output: results, TestMain's own lines (installing a CLI).
				if !strings.HasPrefix(ev.Output, "=== ") && ev.Output != "PASS\n" && ev.Output != "FAIL\n" {
					fmt.Fprint(w, ev.Output)
				}
			default:
				buf[key] = append(buf[key], ev.Output)
			}
		case "pass":
			if top {
				c.Pass++
			}
			delete(buf, key)
		case "skip":
			if top {
				c.Skip++
			}
			if !verbose && skips {
				fmt.Fprint(w, strings.Join(buf[key], ""))
			}
			delete(buf, key)
		case "fail":
			// A test's own lines (a subtest's are its own): a failed script shows its
			// log once, not again with every script around it.
			failed = true
			if ev.Test == "" {
				c.PackageFailed = true
				continue
			}
			if top {
				c.Fail++
			}
			if !verbose {
				fmt.Fprint(w, strings.Join(buf[key], ""))
			}
			delete(buf, key)
		}
	}
	for _, p := range order {
		counts = append(counts, *byPkg[p])
	}
	return counts, failed
}

// isHost reports whether a package of the real-CLI suite is named after its host (every
// host of hook/hosts).
func isHost(name string) bool {
	for _, h := range hosts.All {
		if h.Name() == name {
			return true
		}
	}
	return false
}

// hostOf names a package of the tally: the host of a real-CLI suite, the suite's own
// helpers, or a name given with -as.
func hostOf(pkg string) string {
	const e2eRoot = "cmd/internal/e2e"
	switch {
	case !strings.Contains(pkg, e2eRoot):
		return pkg // a name given with -as
	case isHost(filepath.Base(pkg)):
		return filepath.Base(pkg) + " (real CLI)"
	}
	return "real-CLI suite helpers"
}

func printReport(w io.Writer, path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsum:", err)
		return 1
	}
	lines := map[string]*count{}
	var names []string
	dec := json.NewDecoder(strings.NewReader(string(data)))
	var total count
	for {
		var c count
		if err := dec.Decode(&c); err != nil {
			break
		}
		name := hostOf(c.Name)
		if c.Pass+c.Fail+c.Skip == 0 && !c.PackageFailed {
			continue // a package without tests
		}
		l := lines[name]
		if l == nil {
			l = &count{Name: name}
			lines[name] = l
			names = append(names, name)
		}
		l.Pass, l.Fail, l.Skip = l.Pass+c.Pass, l.Fail+c.Fail, l.Skip+c.Skip
		l.PackageFailed = l.PackageFailed || c.PackageFailed
		total.Pass, total.Fail, total.Skip = total.Pass+c.Pass, total.Fail+c.Fail, total.Skip+c.Skip
		total.PackageFailed = total.PackageFailed || c.PackageFailed
	}
	// The real CLIs' lines after the others, as they ran.
	sort.SliceStable(names, func(i, j int) bool {
		return !strings.HasSuffix(names[i], "(real CLI)") && strings.HasSuffix(names[j], "(real CLI)")
	})
	fmt.Fprintln(w, "make test: summary")
	for _, n := range names {
		l := lines[n]
		s := fmt.Sprintf("  %-25s %d passed, %d failed, %d skipped", n+":", l.Pass, l.Fail, l.Skip)
		if l.PackageFailed && l.Fail == 0 {
			s += " (a package failed to build or run: see above)"
		}
		fmt.Fprintln(w, s)
	}
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", total.Pass, total.Fail, total.Skip)
	if total.Fail > 0 || total.PackageFailed {
		return 1
	}
	return 0
}

// checkLeftovers fails if the tests left anything in dir, their temporary directory: a
// file, or a process running from it or with it as its TMPDIR (which it kills).
func checkLeftovers(w io.Writer, dir string) int {
	code := 0
	for _, p := range append(e2e.Reap(dir), e2e.ReapEnv("TMPDIR="+dir)...) {
		fmt.Fprintf(w, "make test: FAIL: a process left running by the tests (now killed): %s\n", p)
		code = 1
	}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && path != dir {
			fmt.Fprintf(w, "make test: FAIL: left in the temporary directory: %s\n", path)
			code = 1
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	if code == 0 {
		fmt.Fprintln(w, "make test: nothing left running, nothing left in the temporary directory")
	}
	return code
}
