// Command warmupblocks asks whether a restart routine's warm-up runs could
// be measured runs instead. After each restart (--restart-every) a duet
// routine makes one warm-up block on the new server processes, not
// compared, which costs about a ninth of its blocks at --restart-every 8.
// Both sides' processes are new in that block alike, so its ratio may be
// as good a sample as any other block's. For each figure of the query
// rounds and the ingest it prints how far a warm-up block's log-ratio
// (contender over baseline) lies from the mean of its process's measured
// blocks, against how far each measured block lies from the mean of the
// others of its process (the same distance for a block like the rest): the
// root mean squares of both, their ratio, and the warm-up blocks' mean
// signed distance, pooled over the processes of every routine given.
//
//	go run ./tools/warmupblocks [-baseline master] [-contender pr] ROUTINE_DIR...
//
// A ratio near 1 and a signed mean near 0 say the warm-up block varies as
// a measured block does and leans no way; a ratio well above 1 says the
// new processes' first runs are noisier in their ratio than the rest.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat"

	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/record"
)

// figure is one pooled figure: the metric of every operation of a phase.
type figure struct{ metric, phase string }

type sums struct {
	warm, warmSigned, measured float64
	nWarm, nMeasured           int
}

func main() {
	baseline := flag.String("baseline", "master", "the baseline side's name")
	contender := flag.String("contender", "pr", "the contender side's name")
	flag.Parse()
	if flag.NArg() < 1 {
		fmt.Fprintln(os.Stderr, "usage: go run ./tools/warmupblocks [-baseline master] [-contender pr] ROUTINE_DIR...")
		os.Exit(2)
	}
	all := map[figure]*sums{}
	for _, dir := range flag.Args() {
		if err := add(dir, *baseline, *contender, all); err != nil {
			fmt.Fprintln(os.Stderr, "warmupblocks:", err)
			os.Exit(1)
		}
	}
	var figs []figure
	for f := range all {
		figs = append(figs, f)
	}
	sort.Slice(figs, func(i, j int) bool {
		if figs[i].phase != figs[j].phase {
			return figs[i].phase < figs[j].phase
		}
		return figs[i].metric < figs[j].metric
	})
	fmt.Println("| figure | warm-up blocks | measured blocks | warm-up block from its process's mean, RMS | a measured block from the others', RMS | ratio | warm-up block, mean signed distance |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, f := range figs {
		s := all[f]
		if s.nWarm == 0 || s.nMeasured == 0 {
			continue
		}
		w, m := math.Sqrt(s.warm/float64(s.nWarm)), math.Sqrt(s.measured/float64(s.nMeasured))
		fmt.Printf("| %s (%s) | %d | %d | %.2f%% | %.2f%% | %.2f | %+.2f%% |\n", f.metric, f.phase, s.nWarm, s.nMeasured, 100*w, 100*m, w/m, 100*s.warmSigned/float64(s.nWarm))
	}
}

// add pools one process's figure: w its warm-up block's log-ratio, xs its
// measured blocks'. The warm-up block's distance is from the mean of xs; a
// measured block's from the mean of the others, so that a warm-up block
// like any measured one lies about as far.
func (s *sums) add(w float64, xs []float64) {
	d := w - stat.Mean(xs, nil)
	s.warm += d * d
	s.warmSigned += d
	s.nWarm++
	for i := range xs {
		others := append(slices.Clone(xs[:i]), xs[i+1:]...)
		e := xs[i] - stat.Mean(others, nil)
		s.measured += e * e
		s.nMeasured++
	}
}

// block is one block's runs of the two sides, by side name.
type block map[string]map[compare.Key]float64

// add pools one routine's warm-up and measured blocks into all.
func add(dir, baseline, contender string, all map[figure]*sums) error {
	measured, err := load(filepath.Join(dir, "results"))
	if err != nil {
		return err
	}
	warm, err := load(filepath.Join(dir, "warmup"))
	if err != nil {
		return err
	}
	base, con := baseline, contender
	// process -> block number -> side -> values; warm-up runs are block 0.
	procs := map[int]map[int]block{}
	put := func(r *record.Record) {
		p := r.Routine.Process
		if procs[p] == nil {
			procs[p] = map[int]block{}
		}
		b := procs[p][r.Routine.Block]
		if b == nil {
			b = block{}
			procs[p][r.Routine.Block] = b
		}
		v, _ := compare.RunValues(r)
		b[r.Routine.Side] = v
	}
	for _, r := range append(measured, warm...) {
		put(r)
	}
	for _, blocks := range procs {
		w, ok := blocks[0]
		if !ok || len(blocks) < 3 {
			continue
		}
		ratios := func(b block) map[compare.Key]float64 {
			out := map[compare.Key]float64{}
			for k, bv := range b[base] {
				if cv, ok := b[con][k]; ok && bv > 0 && cv > 0 && wanted(k) {
					out[k] = math.Log(cv / bv)
				}
			}
			return out
		}
		var ms []map[compare.Key]float64
		for n, b := range blocks {
			if n != 0 {
				ms = append(ms, ratios(b))
			}
		}
		for k, wv := range ratios(w) {
			var xs []float64
			for _, m := range ms {
				if v, ok := m[k]; ok {
					xs = append(xs, v)
				}
			}
			if len(xs) < 3 {
				continue
			}
			f := figure{k.Metric, k.Phase}
			if all[f] == nil {
				all[f] = &sums{}
			}
			all[f].add(wv, xs)
		}
	}
	return nil
}

// wanted are the figures the gate tests most: a phase's throughput, mean
// and median latency.
func wanted(k compare.Key) bool {
	return k.Metric == "throughput" || k.Metric == "mean latency" || k.Metric == "50th percentile latency" || k.Metric == "99th percentile latency"
}

// load is the routine's records of a folder that name their server
// process (a routine that restarted its servers).
func load(dir string) ([]*record.Record, error) {
	recs, damaged := record.Store{Dir: dir}.List()
	if len(damaged) > 0 {
		return nil, fmt.Errorf("%s: %v", dir, damaged[0])
	}
	var out []*record.Record
	for _, r := range recs {
		if r.Routine != nil && r.Routine.Process > 0 {
			out = append(out, r)
		}
	}
	return out, nil
}
