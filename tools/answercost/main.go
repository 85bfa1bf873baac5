// Command answercost reads the runs of tools/answer-cost and prints what
// CHECK_ANSWERS costs per database: the bench process's CPU (user+sys, from
// the CPU file the script writes), the queries run and checked, the query
// rounds' throughput in queries/s, and the CPU per checked query: the
// median, over the script's rounds, of (CPU of the checked run − CPU of the
// unchecked run of the same round) / answers checked.
//
//	go run ./tools/answercost RESULTS_DIR CPU_FILE
//
// Labels are TARGET-MODE-ROUND, MODE off, all or share; CPU_FILE has one
// "LABEL SECONDS" line a run.
package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/tsbench/tsbench/record"
)

type run struct {
	cpu, queries, checked, seconds float64
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go run ./tools/answercost RESULTS_DIR CPU_FILE")
		os.Exit(2)
	}
	recs, errs := record.Store{Dir: os.Args[1]}.List()
	if len(errs) > 0 {
		fmt.Fprintln(os.Stderr, errs)
		os.Exit(1)
	}
	runs := map[string]*run{}
	for _, r := range recs {
		x := &run{}
		for _, p := range r.Phases {
			if p.Name != "query" {
				continue
			}
			x.seconds += p.Seconds
			for _, op := range p.Operations {
				x.queries += float64(op.OKOps + op.FailOps)
				x.checked += float64(op.AnswersChecked)
			}
		}
		if r.Status != record.StatusComplete {
			fmt.Fprintf(os.Stderr, "answercost: run %s (%s) is %s: %s\n", r.ID, r.Label, r.Status, r.Error)
			os.Exit(1)
		}
		runs[r.Label] = x
	}
	f, err := os.Open(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 || runs[fields[0]] == nil {
			continue
		}
		runs[fields[0]].cpu, _ = strconv.ParseFloat(fields[1], 64)
	}
	type key struct{ target, mode string }
	byMode := map[key][]string{}
	var targets []string
	for label := range runs {
		parts := strings.Split(label, "-")
		if len(parts) != 3 {
			continue
		}
		k := key{parts[0], parts[1]}
		if len(byMode[key{parts[0], "off"}]) == 0 && k.mode == "off" {
			targets = append(targets, parts[0])
		}
		byMode[k] = append(byMode[k], label)
	}
	sort.Strings(targets)
	fmt.Println("| database | answers checked | runs | queries a run | checked a run | bench CPU s (median) | CPU added (median) | CPU per checked query | queries/s (median) | vs unchecked |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	var noise []string
	for _, t := range targets {
		offLabels := byMode[key{t, "off"}]
		off := median(offLabels, runs, func(r *run) float64 { return r.queries / r.seconds })
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, l := range offLabels {
			lo, hi = math.Min(lo, runs[l].cpu), math.Max(hi, runs[l].cpu)
		}
		noise = append(noise, fmt.Sprintf("%s %.2f–%.2f s", t, lo, hi))
		for _, mode := range []string{"off", "share", "all"} {
			labels := byMode[key{t, mode}]
			if len(labels) == 0 {
				continue
			}
			sort.Strings(labels)
			qps := median(labels, runs, func(r *run) float64 { return r.queries / r.seconds })
			added, per := "—", "—"
			if mode != "off" {
				var deltas, costs []float64
				for _, l := range labels {
					o := runs[strings.Replace(l, "-"+mode+"-", "-off-", 1)]
					if o != nil && runs[l].checked > 0 {
						deltas = append(deltas, runs[l].cpu-o.cpu)
						costs = append(costs, (runs[l].cpu-o.cpu)/runs[l].checked*1e6)
					}
				}
				if len(deltas) > 0 {
					added = fmt.Sprintf("%+.2f s", mid(deltas))
					per = fmt.Sprintf("%.0f µs", mid(costs))
				}
			}
			r := runs[labels[0]]
			fmt.Printf("| %s | %s | %d | %.0f | %.0f | %.2f | %s | %s | %.1f | %.3f |\n", t, mode, len(labels), r.queries, r.checked,
				median(labels, runs, func(r *run) float64 { return r.cpu }), added, per, qps, qps/off)
		}
	}
	fmt.Printf("\nThe unchecked runs' CPU, lowest to highest (the noise a difference must exceed): %s.\n", strings.Join(noise, "; "))
}

func mid(v []float64) float64 {
	sort.Float64s(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func median(labels []string, runs map[string]*run, f func(*run) float64) float64 {
	var v []float64
	for _, l := range labels {
		v = append(v, f(runs[l]))
	}
	if len(v) == 0 {
		return 0
	}
	sort.Float64s(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}
