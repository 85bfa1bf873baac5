// Command quietfigures measures, from A/A runs, how much each candidate
// gate figure varies from run to run: the clients' latency (summed over a
// phase group's operations) and throughput against the server's own cost
// figures (its process's CPU, the database's own time for writes and
// queries, the machine's CPU). A figure is worth gating in place of
// latency only where it varies less. With the runs' mean duration it also
// gives the variance a minute of a design: CV² × minutes a run, what a
// design must make small to detect a change in a given wall time (the
// runs needed for an interval of a given width grow with CV², the time with
// minutes a run).
//
//	go run ./tools/quietfigures [-wall 8m34s] RESULTS_DIR LABEL...
//
// -wall is the routine's wall time (its summary's "Wall time"), shared out
// over the runs of the labels; without it a run's minutes are its record's,
// start to end, which leave out the servers started and stopped around it.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/telemetry"
)

// figure is one value of a run over a phase group.
type figure struct{ group, name string }

// serverFigures are the telemetry series taken, by source kind prefix and
// series name; CPU user and system are added into one.
var serverFigures = []struct{ source, series, as string }{
	{"process (java", "CPU user", "server process CPU (s)"},
	{"process (java", "CPU system", "server process CPU (s)"},
	{"IoTDB DataNode", "write time", "IoTDB's own write time (s)"},
	{"IoTDB DataNode", "query time", "IoTDB's own query time (s)"},
	{"machine", "CPU user", "machine CPU user (s)"},
}

func main() {
	wall := flag.Duration("wall", 0, "the routine's wall time, shared out over the runs (default: each record's own duration)")
	flag.Parse()
	if flag.NArg() < 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./tools/quietfigures [-wall DURATION] RESULTS_DIR LABEL...")
		os.Exit(2)
	}
	dir := flag.Arg(0)
	recs, errs := record.Store{Dir: dir}.List()
	for _, err := range errs {
		fmt.Fprintln(os.Stderr, "quietfigures:", err)
	}
	labels := flag.Args()[1:]
	vals := map[string]map[figure][]float64{}
	var order []figure
	minutes := map[string][]float64{}
	for _, r := range recs {
		if !slices.Contains(labels, r.Label) || r.Status != record.StatusComplete {
			continue
		}
		if vals[r.Label] == nil {
			vals[r.Label] = map[figure][]float64{}
		}
		minutes[r.Label] = append(minutes[r.Label], r.FinishedAt.Sub(r.StartedAt).Minutes())
		run := map[figure]float64{}
		var seen []figure
		add := func(f figure, v float64) {
			if _, ok := run[f]; !ok {
				seen = append(seen, f)
			}
			run[f] += v
		}
		for i := range r.Phases {
			p := &r.Phases[i]
			g := p.Group()
			var sum, ops float64
			for _, op := range p.Operations {
				sum += float64(op.SumMicros) / 1e6
				ops += float64(op.OKOps)
			}
			add(figure{g, "client latency, summed (s)"}, sum)
			add(figure{g, "client operations"}, ops)
			add(figure{g, "client time (s)"}, p.Seconds)
			names := make([]string, len(p.Server))
			for j, src := range p.Server {
				names[j] = src.Name
			}
			kinds := telemetry.Kinds(names)
			for j, src := range p.Server {
				for _, se := range src.Series {
					for _, sf := range serverFigures {
						if strings.HasPrefix(kinds[j], sf.source) && se.Name == sf.series {
							total := 0.0
							for _, v := range se.Values {
								total += v
							}
							add(figure{g, sf.as}, total)
						}
					}
				}
			}
		}
		for _, f := range seen {
			if f.name == "client operations" || f.name == "client time (s)" {
				continue
			}
			vals[r.Label][f] = append(vals[r.Label][f], run[f])
			if !slices.Contains(order, f) {
				order = append(order, f)
			}
		}
		tp := figure{"", "client throughput (operations/s)"}
		for _, f := range seen {
			if f.name == "client operations" {
				t := figure{f.group, tp.name}
				vals[r.Label][t] = append(vals[r.Label][t], run[f]/run[figure{f.group, "client time (s)"}])
				if !slices.Contains(order, t) {
					order = append(order, t)
				}
			}
		}
	}
	if *wall > 0 {
		n := 0
		for _, m := range minutes {
			n += len(m)
		}
		for l, m := range minutes {
			for i := range m {
				m[i] = wall.Minutes() / float64(n)
			}
			minutes[l] = m
		}
	}
	slices.SortStableFunc(order, func(a, b figure) int { return strings.Compare(a.group, b.group) })
	fmt.Printf("Run-to-run spread (CV) of each figure in %s\n\n", dir)
	head, line := "| phase | figure |", "|---|---|"
	for _, l := range labels {
		head += " CV " + l + " | CV² × min a run |"
		line += "---|---|"
	}
	fmt.Println(head)
	fmt.Println(line)
	for _, f := range order {
		row, any := fmt.Sprintf("| %s | %s |", f.group, f.name), false
		for _, l := range labels {
			xs := vals[l][f]
			mean, sd := stat.MeanStdDev(xs, nil)
			if len(xs) < 3 || mean == 0 {
				row += " - | - |"
				continue
			}
			cv := sd / math.Abs(mean)
			row += fmt.Sprintf(" %.1f%% (%d runs) | %.4f |", 100*cv, len(xs), cv*cv*stat.Mean(minutes[l], nil))
			any = true
		}
		if any {
			fmt.Println(row)
		}
	}
	fmt.Println()
	for _, l := range labels {
		if len(minutes[l]) > 0 {
			fmt.Printf("%s: %d runs, %.2f min a run on average\n", l, len(minutes[l]), stat.Mean(minutes[l], nil))
		}
	}
}
