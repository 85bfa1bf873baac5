// Command indexgen fills a results folder with N run records made from one
// real record (tools/results-index runs the weekly suite on the Null
// target for it): a team's history of years, a run in ten on master (two a
// week, a 10% slower ingest from week SLOW on) and the rest three runs a
// pull request. Each copy has its own id, label and start time, and its
// phases' durations shifted by a little noise, so that throughputs differ.
// The copies are saved as bench saves a record, without the index.
//
//	go run ./tools/indexgen TEMPLATE.json OUT_DIR N SLOW
package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/tsbench/tsbench/record"
)

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: indexgen TEMPLATE.json OUT_DIR N SLOW")
		os.Exit(2)
	}
	n, err1 := strconv.Atoi(os.Args[3])
	slow, err2 := strconv.Atoi(os.Args[4])
	if err1 != nil || err2 != nil || n < 1 {
		fmt.Fprintln(os.Stderr, "indexgen: N and SLOW are whole numbers, N at least 1")
		os.Exit(2)
	}
	store := record.Store{Dir: os.Args[2]}
	rng := rand.New(rand.NewPCG(7, 7))
	t0 := time.Date(2020, 1, 6, 3, 0, 0, 0, time.UTC)
	for i := range n {
		rec, err := record.Load(os.Args[1]) // a fresh copy: Save encodes the histograms in place
		if err != nil {
			fmt.Fprintln(os.Stderr, "indexgen:", err)
			os.Exit(1)
		}
		// Every tenth run is master's: two a week.
		week := i / 20
		factor := 1 + 0.01*rng.NormFloat64()
		if i%10 == 0 {
			rec.Label = fmt.Sprintf("master-w%04d", week)
			if week >= slow {
				factor *= 1.10
			}
		} else {
			rec.Label = fmt.Sprintf("pr-%05d", i/3)
		}
		rec.StartedAt = t0.Add(time.Duration(i) * 7 * 24 * time.Hour / 20)
		rec.FinishedAt = rec.StartedAt.Add(time.Minute)
		rec.ID = record.NewID(rec.StartedAt, fmt.Sprint(rec.Label, i))
		for p := range rec.Phases {
			rec.Phases[p].Seconds *= factor
		}
		if _, err := store.Save(rec); err != nil {
			fmt.Fprintln(os.Stderr, "indexgen:", err)
			os.Exit(1)
		}
	}
}
