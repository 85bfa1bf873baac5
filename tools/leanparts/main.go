// Command leanparts takes apart the lean of duet A/A routines: for each
// routine folder (bench routine --out), block by block, how the contender's
// query rounds compare with the baseline's, the two runs made at once. A
// lean that is the machine's drift cancels within a block; one that stays
// block after block belongs to the routine. Beside the latency it gives
// what can say why: the clients' time between operations (a phase's
// seconds times its clients, less the operations' latency: query making,
// answer checks, waiting for the phase's last client) and the CPU of the
// process behind each side's PORT (its server, or a relay in front of it)
// over the same phases. A routine made with --restart-every also gets a
// line for each of its server processes: a lean the processes carry
// changes from one to the next.
//
//	go run ./tools/leanparts ROUTINE_DIR...
package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tsbench/tsbench/record"
	"gonum.org/v1/gonum/stat"
)

// rounds is what one run's query rounds add up to.
type rounds struct {
	latency float64 // seconds, summed over the operations
	between float64 // seconds of the clients outside their operations
	cpu     float64 // CPU seconds of the process behind PORT; 0 unsampled
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./tools/leanparts ROUTINE_DIR...")
		os.Exit(2)
	}
	fmt.Println("| routine | blocks | query latency, contender/baseline (geometric mean over blocks) | the same, by sixths of the blocks in their order | blocks the contender was faster | clients' time between operations, contender − baseline, a run | CPU of the process behind PORT, contender/baseline |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, dir := range os.Args[1:] {
		line, err := routine(dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "leanparts: %s: %v\n", dir, err)
			continue
		}
		fmt.Println(line)
	}
}

// pair is one block's two runs.
type pair struct {
	block      int
	process    int // the servers' process (--restart-every); 0 kept from the start
	base, cont rounds
}

// routine is the table's lines for one routine folder: the whole routine,
// then, where --restart-every gave the sides new server processes, each
// process on its own (a lean that the servers' processes carry changes
// from one to the next; one that they do not, stays).
func routine(dir string) (string, error) {
	base, cont, err := sides(dir)
	if err != nil {
		return "", err
	}
	recs, errs := record.Store{Dir: filepath.Join(dir, "results")}.List()
	for _, err := range errs {
		fmt.Fprintln(os.Stderr, "leanparts:", err)
	}
	byBlock := map[int]map[string]rounds{}
	process := map[int]int{}
	for _, r := range recs {
		if r.Routine == nil || r.Routine.Warmup || r.Status != record.StatusComplete {
			continue
		}
		if byBlock[r.Routine.Block] == nil {
			byBlock[r.Routine.Block] = map[string]rounds{}
		}
		byBlock[r.Routine.Block][r.Label] = sum(r)
		process[r.Routine.Block] = r.Routine.Process
	}
	var pairs []pair
	for blk, b := range byBlock {
		x, okx := b[base]
		y, oky := b[cont]
		if okx && oky && x.latency > 0 && y.latency > 0 {
			pairs = append(pairs, pair{block: blk, process: process[blk], base: x, cont: y})
		}
	}
	slices.SortFunc(pairs, func(a, b pair) int { return a.block - b.block })
	if len(pairs) == 0 {
		return "", fmt.Errorf("no block with a complete run of %s and of %s", base, cont)
	}
	name := filepath.Join(filepath.Base(filepath.Dir(filepath.Clean(dir))), filepath.Base(filepath.Clean(dir)))
	lines := []string{line(name, pairs)}
	procs := map[int][]pair{}
	for _, p := range pairs {
		procs[p.process] = append(procs[p.process], p)
	}
	if len(procs) > 1 {
		for _, n := range slices.Sorted(maps.Keys(procs)) {
			lines = append(lines, line(fmt.Sprintf("%s, process %d", name, n), procs[n]))
		}
	}
	return strings.Join(lines, "\n"), nil
}

// line is the table's line for some blocks of a routine.
func line(name string, pairs []pair) string {
	var logLat, between, logCPU []float64
	faster := 0
	for _, p := range pairs {
		x, y := p.base, p.cont
		logLat = append(logLat, math.Log(y.latency/x.latency))
		if y.latency < x.latency {
			faster++
		}
		between = append(between, y.between-x.between)
		if x.cpu > 0 && y.cpu > 0 {
			logCPU = append(logCPU, math.Log(y.cpu/x.cpu))
		}
	}
	cpu := "not sampled"
	if len(logCPU) > 0 {
		cpu = fmt.Sprintf("%.3f (%d blocks)", math.Exp(stat.Mean(logCPU, nil)), len(logCPU))
	}
	// A drift shows as sixths that differ; a lean the routine drew at
	// its start, as sixths alike.
	var sixths []string
	for i := range 6 {
		part := logLat[i*len(logLat)/6 : (i+1)*len(logLat)/6]
		if len(part) > 0 {
			sixths = append(sixths, fmt.Sprintf("%.3f", math.Exp(stat.Mean(part, nil))))
		}
	}
	return fmt.Sprintf("| %s | %d | %.3f | %s | %d of %d | %+.3f s | %s |", name, len(logLat),
		math.Exp(stat.Mean(logLat, nil)), strings.Join(sixths, " "), faster, len(logLat), stat.Mean(between, nil), cpu)
}

// sides are the routine's baseline and contender, from its routine.json
// ("sides": "NAME: ...", the baseline first).
func sides(dir string) (base, cont string, err error) {
	b, err := os.ReadFile(filepath.Join(dir, "routine.json"))
	if err != nil {
		return "", "", err
	}
	var r struct {
		Sides []string `json:"sides"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return "", "", fmt.Errorf("routine.json: %w", err)
	}
	if len(r.Sides) != 2 {
		return "", "", fmt.Errorf("routine.json names %d sides; this takes two", len(r.Sides))
	}
	name := func(s string) string { n, _, _ := strings.Cut(s, ":"); return n }
	return name(r.Sides[0]), name(r.Sides[1]), nil
}

// sum adds up a run's query rounds.
func sum(r *record.Record) rounds {
	var out rounds
	for i := range r.Phases {
		ph := &r.Phases[i]
		if ph.Name != "query" {
			continue
		}
		var lat float64
		for _, s := range ph.Operations {
			lat += float64(s.SumMicros) / 1e6
		}
		out.latency += lat
		out.between += ph.Seconds*float64(max(ph.Clients, 1)) - lat
		for _, src := range ph.Server {
			if !strings.HasPrefix(src.Name, "process ") || !strings.Contains(src.Name, ", port ") {
				continue
			}
			for _, se := range src.Series {
				if se.Name != "CPU user" && se.Name != "CPU system" {
					continue
				}
				for _, v := range se.Values {
					out.cpu += v
				}
			}
		}
	}
	return out
}
