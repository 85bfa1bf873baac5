// Command quietfigures measures, from the A/A runs of a routine, how much
// each candidate gate figure varies and how much a design pays in time for
// that: the clients' latency (summed over a phase group's operations) and
// throughput beside the server's own cost figures (its process's CPU, the
// database's own time for writes and queries, the machine's CPU).
//
//	go run ./tools/quietfigures [-wall 8m34s] RESULTS_DIR BASELINE CONTENDER
//
// For each figure it prints the run-to-run spread of each side (CV), the
// spread of the contender's log-ratio to the baseline's run of the same
// block, and two costs: the variance of one block's estimate of the ratio
// times the minutes a block takes, unpaired (CV² of both sides, as Welch's
// test reads the runs) and paired (the log-ratio's variance, as --paired
// reads them). The runs a routine needs for an interval of a given width
// grow with that variance and its time with the minutes a block, so the
// smaller cost is the design that decides sooner; a figure is worth gating
// in place of latency only where its cost is smaller.
//
// -wall is the routine's wall time (its summary's "Wall time"), shared out
// over the blocks; without it a block's minutes are its runs' own, start to
// end, which leave out the servers started and stopped around them.
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

// run is one record's figures.
type run struct {
	label   string
	block   int
	minutes float64
	values  map[figure]float64
}

func main() {
	wall := flag.Duration("wall", 0, "the routine's wall time, shared out over its blocks (default: the runs' own durations)")
	flag.Parse()
	if flag.NArg() != 3 {
		fmt.Fprintln(os.Stderr, "usage: go run ./tools/quietfigures [-wall DURATION] RESULTS_DIR BASELINE CONTENDER")
		os.Exit(2)
	}
	dir, base, cont := flag.Arg(0), flag.Arg(1), flag.Arg(2)
	recs, errs := record.Store{Dir: dir}.List()
	for _, err := range errs {
		fmt.Fprintln(os.Stderr, "quietfigures:", err)
	}
	var runs []run
	var order []figure
	for _, r := range recs {
		if (r.Label != base && r.Label != cont) || r.Status != record.StatusComplete || r.Routine == nil {
			continue
		}
		ru := run{label: r.Label, block: r.Routine.Block, minutes: r.FinishedAt.Sub(r.StartedAt).Minutes(), values: figures(r)}
		for f := range ru.values {
			if !slices.Contains(order, f) {
				order = append(order, f)
			}
		}
		runs = append(runs, ru)
	}
	slices.SortFunc(order, func(a, b figure) int {
		if c := strings.Compare(a.group, b.group); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	blocks := map[int][2]*run{}
	blockMinutes := map[int]float64{}
	for i := range runs {
		ru := &runs[i]
		pair := blocks[ru.block]
		pair[map[bool]int{true: 0, false: 1}[ru.label == base]] = ru
		blocks[ru.block] = pair
		blockMinutes[ru.block] += ru.minutes
	}
	var perBlock []float64
	for b, pair := range blocks {
		if pair[0] == nil || pair[1] == nil {
			delete(blocks, b)
			continue
		}
		perBlock = append(perBlock, blockMinutes[b])
	}
	if len(blocks) < 3 {
		fmt.Fprintf(os.Stderr, "quietfigures: %d blocks with a run of %s and of %s in %s: need at least 3\n", len(blocks), base, cont, dir)
		os.Exit(1)
	}
	minutes := stat.Mean(perBlock, nil)
	if *wall > 0 {
		minutes = wall.Minutes() / float64(len(blocks))
	}
	fmt.Printf("%s against %s in %s: %d blocks, %.2f min a block\n\n", cont, base, dir, len(blocks), minutes)
	fmt.Println("| phase | figure | CV " + base + " | CV " + cont + " | SD of log(" + cont + "/" + base + ") in blocks | unpaired: variance × min a block | paired: variance × min a block |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, f := range order {
		var a, b, lr []float64
		for _, pair := range blocks {
			x, y := pair[0].values[f], pair[1].values[f]
			a, b = append(a, x), append(b, y)
			if x > 0 && y > 0 {
				lr = append(lr, math.Log(y/x))
			}
		}
		cva, cvb := cv(a), cv(b)
		if math.IsNaN(cva) || math.IsNaN(cvb) || len(lr) < 3 {
			continue
		}
		sd := stat.StdDev(lr, nil)
		fmt.Printf("| %s | %s | %.1f%% | %.1f%% | %.1f%% | %.4f | %.4f |\n", f.group, f.name, 100*cva, 100*cvb, 100*sd, (cva*cva+cvb*cvb)*minutes, sd*sd*minutes)
	}
}

// cv is the coefficient of variation, NaN where it means nothing.
func cv(xs []float64) float64 {
	mean, sd := stat.MeanStdDev(xs, nil)
	if len(xs) < 3 || mean == 0 {
		return math.NaN()
	}
	return sd / math.Abs(mean)
}

// figures are a run's values over each phase group: its clients' latency
// summed and throughput, and the server's cost figures.
func figures(r *record.Record) map[figure]float64 {
	out := map[figure]float64{}
	ops, secs := map[string]float64{}, map[string]float64{}
	for i := range r.Phases {
		p := &r.Phases[i]
		g := p.Group()
		for _, op := range p.Operations {
			out[figure{g, "client latency, summed (s)"}] += float64(op.SumMicros) / 1e6
			ops[g] += float64(op.OKOps)
		}
		secs[g] += p.Seconds
		kinds := telemetry.Kinds(p.Server)
		for j, src := range p.Server {
			for _, se := range src.Series {
				for _, sf := range serverFigures {
					if strings.HasPrefix(kinds[j], sf.source) && se.Name == sf.series {
						for _, v := range se.Values {
							out[figure{g, sf.as}] += v
						}
					}
				}
			}
		}
	}
	for g, n := range ops {
		if secs[g] > 0 {
			out[figure{g, "client throughput (operations/s)"}] = n / secs[g]
		}
	}
	return out
}
