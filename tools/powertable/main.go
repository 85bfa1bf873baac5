// Command powertable tables what tools/power-curve's routines found: for
// each design and controlled slowdown, how many routines caught it (exit
// 1), passed (exit 0: every gated row proven within the limit) or could not
// tell (exit 4), with the rate's 95% interval, the routines' wall time and
// runs a side, and how far the gated latency rows leaned (the median over a
// routine's rows of contender/baseline, then the median and range of those
// over the cell's routines), and what the contender's relay holds took as a
// share of the server's time (its last line, where it says: a relay before
// 2026-12-06 said only what it asked), and the contender's server time a
// response against the baseline's (the two relays' last lines): a held
// side's server has fewer requests in hand at a time and answers faster,
// which takes back part of what the holds add; and what share of the wall
// time the servers' steps (starts, restarts, stops) and the warm-up runs
// took, from each summary's "Wall time" line. A routine of a real
// setting change (power-curve's SETTING: its folder holds a file "setting")
// is a cell of its own, named by the setting.
//
//	go run ./tools/powertable OUT
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/tsbench/tsbench/stats"
)

type cell struct {
	design, share string
	setting       string
	norelay       bool // the routines' clients went straight to the servers
	exits         map[int]int
	walls, runs   []float64
	leans         []float64
	took          []float64
	served        []float64
	// servers and warmups are the shares of a routine's wall time its
	// servers' steps (start, restarts, stop) and its warm-up runs took.
	servers, warmups []float64
}

var (
	order    = map[string]int{"fixed": 0, "budget": 1, "keep": 2, "keepbudget": 3, "clear": 4, "clearbudget": 5, "duet": 6, "duetbudget": 7, "duetrestart": 8, "default": 9, "defaultrestart": 10}
	cellName = regexp.MustCompile(`^(fixed|budget|keep|keepbudget|clear|clearbudget|duet|duetbudget|duetrestart|default|defaultrestart)-([0-9.]+)-[0-9]+$`)
	wallLine = regexp.MustCompile(`(?m)^Wall time (\S+):`)
	runsLine = regexp.MustCompile(`(?m)^Routine: .*?, (\d+) runs a side`)
	// The parts of the wall time: "starting/stopping/wiping them around the
	// runs 4m27s" and "the warm-up runs 4m9s".
	serversPart = regexp.MustCompile(`(?m)^Wall time .*?around the runs (\S+?),`)
	warmupsPart = regexp.MustCompile(`(?m)^Wall time .*?the warm-up runs (\S+?) `)
	tookLine    = regexp.MustCompile(`, took \S+ \(([0-9.]+) of it\)`)
	served      = regexp.MustCompile(`of the server's (\S+)\)`)
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: powertable OUT")
		os.Exit(2)
	}
	if err := table(os.Args[1], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// table writes the Markdown table of the routines' folders in out.
func table(out string, w io.Writer) error {
	dirs, err := filepath.Glob(filepath.Join(out, "*-*-*"))
	if err != nil {
		return err
	}
	cells := map[string]*cell{}
	for _, d := range dirs {
		m := cellName.FindStringSubmatch(filepath.Base(d))
		code, err := os.ReadFile(filepath.Join(d, "exit"))
		if m == nil || err != nil {
			continue
		}
		setting, _ := os.ReadFile(filepath.Join(d, "setting"))
		_, err = os.Stat(filepath.Join(d, "norelay"))
		norelay := err == nil
		k := fmt.Sprint(m[1], " ", m[2], " ", string(setting), " ", norelay)
		c := cells[k]
		if c == nil {
			c = &cell{design: m[1], share: m[2], setting: strings.TrimSpace(string(setting)), norelay: norelay, exits: map[int]int{}}
			cells[k] = c
		}
		n, _ := strconv.Atoi(strings.TrimSpace(string(code)))
		c.exits[n]++
		sum, _ := os.ReadFile(filepath.Join(d, "summary.txt"))
		if w := wallLine.FindSubmatch(sum); w != nil {
			if dur, err := time.ParseDuration(string(w[1])); err == nil && dur > 0 {
				c.walls = append(c.walls, dur.Minutes())
				c.servers = append(c.servers, part(serversPart, sum, dur))
				c.warmups = append(c.warmups, part(warmupsPart, sum, dur))
			}
		}
		if r := runsLine.FindSubmatch(sum); r != nil {
			v, _ := strconv.Atoi(string(r[1]))
			c.runs = append(c.runs, float64(v))
		}
		relay, _ := os.ReadFile(filepath.Join(d, "relay"))
		if t := tookLine.FindSubmatch(relay); t != nil {
			v, _ := strconv.ParseFloat(string(t[1]), 64)
			c.took = append(c.took, v)
		}
		base, _ := os.ReadFile(filepath.Join(d, "relay-base"))
		if r, ok := servedRatio(relay, base); ok {
			c.served = append(c.served, r)
		}
		if l, ok := lean(filepath.Join(d, "report.json")); ok {
			c.leans = append(c.leans, l)
		}
	}
	keys := make([]string, 0, len(cells))
	for k := range cells {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := cells[keys[i]], cells[keys[j]]
		if a.design != b.design {
			return order[a.design] < order[b.design]
		}
		x, _ := strconv.ParseFloat(a.share, 64)
		y, _ := strconv.ParseFloat(b.share, 64)
		if x != y {
			return x < y
		}
		if a.setting != b.setting {
			return a.setting < b.setting
		}
		return !a.norelay && b.norelay
	})
	fmt.Fprintln(w, "| design | contender slower by (share asked) | routines | caught (exit 1) | passed (exit 0) | inconclusive (exit 4) | wall time, median | runs a side, median | servers' steps / warm-up runs, share of the wall time, medians | gated latency rows, median ratio [range over routines] | the holds took, share of server time, median [range] | server time a response, contender/baseline, median [range] |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, k := range keys {
		c := cells[k]
		n := c.exits[0] + c.exits[1] + c.exits[4]
		s, _ := strconv.ParseFloat(c.share, 64)
		what := fmt.Sprintf("%g%%", 100*s)
		switch {
		case c.setting != "":
			what = "setting " + c.setting
		case s == 0:
			what = "0 (A/A)"
		}
		lean := "n/a"
		if len(c.leans) > 0 {
			lean = medianRange(c.leans)
		}
		took := "not recorded"
		if len(c.took) > 0 {
			took = fmt.Sprintf("%s (%d recorded)", medianRange(c.took), len(c.took))
		}
		servedBy := "not recorded"
		if len(c.served) > 0 {
			servedBy = fmt.Sprintf("%s (%d recorded)", medianRange(c.served), len(c.served))
		}
		// A routine stopped before its summary was written has an exit
		// code but no wall time: say so rather than print a median of nothing.
		wall, runs, lifecycle := "not recorded", "not recorded", "not recorded"
		if len(c.walls) > 0 {
			wall = fmt.Sprintf("%.1f min", stats.Median(c.walls))
			lifecycle = fmt.Sprintf("%.2f / %.2f", stats.Median(c.servers), stats.Median(c.warmups))
		}
		if len(c.runs) > 0 {
			runs = fmt.Sprintf("%g", stats.Median(c.runs))
		}
		design := c.design
		if c.norelay {
			design += ", no relay"
			took, servedBy = "no relay", "no relay"
		}
		fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", design, what, n, rate(c.exits[1], n), rate(c.exits[0], n), rate(c.exits[4], n),
			wall, runs, lifecycle, lean, took, servedBy)
	}
	return nil
}

// part is the share of wall the part of a summary's wall time line that
// re matches took (0 where the line does not name it: no warm-up runs).
func part(re *regexp.Regexp, sum []byte, wall time.Duration) float64 {
	m := re.FindSubmatch(sum)
	if m == nil {
		return 0
	}
	d, err := time.ParseDuration(string(m[1]))
	if err != nil {
		return 0
	}
	return d.Seconds() / wall.Seconds()
}

// medianRange is "median [min–max]" of xs, which it sorts.
func medianRange(xs []float64) string {
	sort.Float64s(xs)
	return fmt.Sprintf("%.3f [%.3f–%.3f]", stats.Median(xs), xs[0], xs[len(xs)-1])
}

// rate is k of n with its exact (Clopper–Pearson) 95% interval.
func rate(k, n int) string {
	if n == 0 {
		return "—"
	}
	lo, hi := 0.0, 1.0
	if k > 0 {
		lo = distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(0.025)
	}
	if k < n {
		hi = distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(0.975)
	}
	return fmt.Sprintf("%d (%.0f–%.0f%%)", k, 100*lo, 100*hi)
}

// servedRatio is the contender's mean server time a response over the
// baseline's, from their relays' last lines.
func servedRatio(contender, baseline []byte) (float64, bool) {
	c, b := served.FindSubmatch(contender), served.FindSubmatch(baseline)
	if c == nil || b == nil {
		return 0, false
	}
	x, err := time.ParseDuration(string(c[1]))
	y, err2 := time.ParseDuration(string(b[1]))
	if err != nil || err2 != nil || y <= 0 {
		return 0, false
	}
	return float64(x) / float64(y), true
}

// lean is the median ratio of a routine's gated latency rows.
func lean(path string) (float64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	var rep struct {
		Rows []struct {
			Metric     string `json:"metric"`
			Contenders []struct {
				Gated bool    `json:"gated"`
				Ratio float64 `json:"ratio"`
			} `json:"contenders"`
		} `json:"rows"`
	}
	if json.Unmarshal(b, &rep) != nil {
		return 0, false
	}
	var rs []float64
	for _, r := range rep.Rows {
		for _, c := range r.Contenders {
			if c.Gated && c.Ratio > 0 && strings.Contains(r.Metric, "latency") {
				rs = append(rs, c.Ratio)
			}
		}
	}
	if len(rs) == 0 {
		return 0, false
	}
	return stats.Median(rs), true
}
