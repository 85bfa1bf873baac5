// Command telemetrycost tables what tools/telemetry-cost measured: per
// mode (telemetry off, the host's sources, everything), the medians over
// its runs of the bench process's and the server's CPU per point written,
// and their ratios to the runs without telemetry.
//
//	go run ./tools/telemetrycost RESULTS_DIR CPU_FILE
//
// CPU_FILE has a line a run: its label (MODE-ROUND), bench's CPU seconds
// and the server's.
package main

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/record"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: telemetrycost RESULTS_DIR CPU_FILE")
		os.Exit(2)
	}
	recs, damaged := record.Store{Dir: os.Args[1]}.List()
	if len(damaged) > 0 {
		fmt.Fprintln(os.Stderr, "telemetrycost:", damaged)
		os.Exit(1)
	}
	points := map[string]int64{}
	for _, r := range recs {
		for _, p := range r.Phases {
			for _, op := range p.Operations {
				if op.Operation == config.Ingestion {
					points[r.Label] += op.OKPoints
				}
			}
		}
	}
	f, err := os.Open(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "telemetrycost:", err)
		os.Exit(1)
	}
	defer f.Close()
	type runs struct{ bench, server []float64 }
	modes := map[string]*runs{}
	var order []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 3 {
			continue
		}
		mode, _, _ := strings.Cut(fs[0], "-")
		b, err1 := strconv.ParseFloat(fs[1], 64)
		s, err2 := strconv.ParseFloat(fs[2], 64)
		n := points[fs[0]]
		if err1 != nil || err2 != nil || n == 0 {
			fmt.Fprintf(os.Stderr, "telemetrycost: %s: no CPU or no points\n", fs[0])
			os.Exit(1)
		}
		if modes[mode] == nil {
			modes[mode] = &runs{}
			order = append(order, mode)
		}
		modes[mode].bench = append(modes[mode].bench, b/float64(n)*1e6)
		modes[mode].server = append(modes[mode].server, s/float64(n)*1e6)
	}
	median := func(v []float64) float64 {
		v = slices.Sorted(slices.Values(v))
		if len(v)%2 == 1 {
			return v[len(v)/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	fmt.Println("| telemetry | runs | bench CPU per point (µs), median | ratio to off | server CPU per point (µs), median | ratio to off |")
	fmt.Println("|---|---|---|---|---|---|")
	off := modes["off"]
	for _, m := range order {
		r := modes[m]
		b, s := median(r.bench), median(r.server)
		rb, rs := "-", "-"
		if off != nil {
			rb, rs = fmt.Sprintf("%.3f", b/median(off.bench)), fmt.Sprintf("%.3f", s/median(off.server))
		}
		fmt.Printf("| %s | %d | %.4g (%s) | %s | %.4g (%s) | %s |\n", m, len(r.bench), b, spread(r.bench), rb, s, spread(r.server), rs)
	}
}

// spread is the range of a mode's runs.
func spread(v []float64) string {
	return fmt.Sprintf("%.4g–%.4g", slices.Min(v), slices.Max(v))
}
