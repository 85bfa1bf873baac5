// Command testtimes reads `go test -json` on its input and writes what a
// plain `go test` would (a line a package; the whole output of a package
// that failed), then the slowest top-level tests. CI's length is set by its
// slowest package, and a package's time alone does not say which of its
// tests grew: scripts/test pipes its go test through this, so that every
// CI log says where the minutes went.
//
//	go test -json ./... | go run ./tools/testtimes [-slowest 20] [-subtests 20]
//
// It exits 0 whatever the tests did: the exit status is go test's
// (set -o pipefail).
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"
)

// event is one line of `go test -json` (go doc test2json).
type event struct {
	Action      string
	Package     string
	Test        string
	Elapsed     float64
	Output      string
	ImportPath  string // build-output and build-fail events
	FailedBuild string
}

type timing struct {
	name    string
	elapsed time.Duration
	action  string
}

func main() {
	slowest := flag.Int("slowest", 20, "how many of the slowest top-level tests to list")
	subtests := flag.Int("subtests", 20, "how many of the slowest subtests to list")
	flag.Parse()
	timings, subs := summarize(os.Stdin, os.Stdout)
	list(fmt.Sprintf("The %d slowest tests (packages run side by side: a test's time includes its wait for the machine):", min(*slowest, len(timings))), timings, *slowest)
	// A top-level test's time does not say which of its parts grew.
	list(fmt.Sprintf("The %d slowest subtests:", min(*subtests, len(subs))), subs, *subtests)
}

// list prints the n slowest of ts under a heading.
func list(heading string, ts []timing, n int) {
	if n <= 0 || len(ts) == 0 {
		return
	}
	slices.SortFunc(ts, func(a, b timing) int { return cmp.Compare(b.elapsed, a.elapsed) })
	fmt.Printf("\n%s\n", heading)
	for _, t := range ts[:min(n, len(ts))] {
		fmt.Printf("%8.1f s  %s  %s\n", t.elapsed.Seconds(), t.action, t.name)
	}
}

// summarize copies to out what plain go test would print for the events on
// in, and returns the top-level tests' times and the subtests'.
func summarize(in io.Reader, out io.Writer) (timings, subtests []timing) {
	buffered := map[string][]string{} // package → its output so far
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(out, "%s\n", line) // not an event: go test's own words
			continue
		}
		pkg := cmp.Or(e.Package, e.ImportPath)
		switch e.Action {
		case "output", "build-output":
			buffered[pkg] = append(buffered[pkg], e.Output)
		case "pass", "fail", "skip":
			if e.Test != "" {
				t := timing{pkg + " " + e.Test, time.Duration(e.Elapsed * float64(time.Second)), e.Action}
				if strings.Contains(e.Test, "/") {
					subtests = append(subtests, t)
				} else {
					timings = append(timings, t)
				}
				continue
			}
			if e.Action == "fail" {
				// All of it, as go test -v would have shown it.
				fmt.Fprint(out, strings.Join(buffered[pkg], ""))
			} else {
				for _, o := range buffered[pkg] {
					if strings.HasPrefix(o, "ok ") || strings.HasPrefix(o, "?") || strings.HasPrefix(o, "ok\t") {
						fmt.Fprint(out, o)
					}
				}
			}
			delete(buffered, pkg)
		case "build-fail":
			fmt.Fprint(out, strings.Join(buffered[pkg], ""))
			delete(buffered, pkg)
		}
	}
	// A package whose binary was killed before its end event.
	for _, pkg := range slices.Sorted(maps.Keys(buffered)) {
		fmt.Fprint(out, strings.Join(buffered[pkg], ""))
	}
	return timings, subtests
}
