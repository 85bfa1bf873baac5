// Command lookreplay replays the looks of a finished bench routine under a
// schedule of looks of your choice: at each look it compares the runs of
// the first n blocks at the levels that look spends (compare.Options.AtLook),
// as the routine would have, and says where the routine would have stopped
// and why. On the same records, two schedules then differ only by the
// schedule: what a schedule decides is told apart from what the runs were
// (docs/weekly-regression.md, looks a quarter apart against looks after
// every pair of blocks).
//
//	go run ./tools/lookreplay [-paired] [-fail-above 10] [-schedule quarter|pairs] [-first 6] [-looks 14] [-cut N] [-restart-every K] [-show TEXT] RESULTS_DIR BASELINE CONTENDER
//
// -schedule quarter is bench routine's (routine.Schedule, with -restart-every
// K the looks after whole server processes as --restart-every K makes
// them); pairs is the one
// before 2026-12-06: a look after every pair of blocks. A look past the
// blocks the records hold is not made: the replay says the routine would
// have gone on. -cut N replays a budget that ended after N runs a side:
// where the schedule's next look would reach or pass N, a last look at N
// spends the levels left (compare.Options.AtLastLook), as the routine's
// does; without it the budget is not replayed.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/tsbench/tsbench/catalog"
	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/routine"
)

func main() {
	paired := flag.Bool("paired", true, "test the runs in pairs within blocks, as a duet does")
	failAbove := flag.Float64("fail-above", 10, "the gate's limit, percent")
	schedule := flag.String("schedule", "quarter", "quarter (a quarter more runs a side each look) or pairs (a look after every pair of blocks)")
	first := flag.Int("first", 6, "runs a side at the first look")
	looks := flag.Int("looks", routine.DefaultLooks, "the most looks (bench routine's default with a budget)")
	cut := flag.Int("cut", 0, "the runs a side after which the budget ended (0: no budget)")
	show := flag.String("show", "", "also print, at each look, the gated rows whose name holds this text (e.g. \"all operations\")")
	restartEvery := flag.Int("restart-every", 0, "with -schedule quarter, looks after whole server processes of this many blocks, as bench routine --restart-every makes them (0: after pairs of blocks)")
	flag.Parse()
	if flag.NArg() != 3 || *first < compare.MinRuns || *looks < 1 || *cut < 0 || (*schedule != "quarter" && *schedule != "pairs") {
		fmt.Fprintln(os.Stderr, "usage: go run ./tools/lookreplay [-paired] [-fail-above 10] [-schedule quarter|pairs] [-first 6] [-looks 14] [-cut N] [-restart-every K] [-show TEXT] RESULTS_DIR BASELINE CONTENDER")
		os.Exit(2)
	}
	if err := replay(flag.Arg(0), []string{flag.Arg(1), flag.Arg(2)}, *paired, *failAbove, at(*schedule, *first, *looks, *restartEvery), *cut, *show); err != nil {
		fmt.Fprintln(os.Stderr, "lookreplay:", err)
		os.Exit(1)
	}
}

// at is the runs a side at each look of a schedule.
func at(schedule string, first, looks, restartEvery int) []int {
	if schedule == "quarter" {
		s, _ := routine.Schedule(first, looks, restartEvery)
		return s
	}
	var out []int
	for k := range looks {
		out = append(out, first+2*k)
	}
	return out
}

func replay(dir string, labels []string, paired bool, failAbove float64, schedule []int, cut int, show string) error {
	runs, err := catalog.OpenSides(dir, labels)
	if err != nil {
		return err
	}
	held := blocks(runs)
	fmt.Printf("%s: %d blocks; looks after %v runs a side\n", dir, held, schedule)
	base := compare.Options{Paired: paired, MinEffect: 5, MinAbsMS: compare.DefaultMinAbsMS}
	for k, n := range schedule {
		last := cut > 0 && n >= cut
		if last {
			n = cut
		}
		if n > held {
			fmt.Printf("look %d of %d (%d runs a side): not made, the records hold %d blocks: the routine would have gone on\n", k+1, len(schedule), n, held)
			return nil
		}
		var upTo [][]*record.Record
		for _, side := range runs {
			var rs []*record.Record
			for _, r := range side {
				if r.Routine != nil && r.Routine.Block <= n {
					rs = append(rs, r)
				}
			}
			upTo = append(upTo, rs)
		}
		opt := base.AtLook(k+1, len(schedule))
		if last {
			opt = base.AtLastLook(k+1, len(schedule))
		}
		cmp, _, err := compare.Build(labels, upTo, nil, opt, false)
		if err != nil {
			return err
		}
		v := cmp.Decide(failAbove, compare.UntestedFail)
		fmt.Printf("look %d of %d (%d runs a side, intervals at %.4g%%): %s\n", k+1, len(schedule), n, 100*opt.Confidence, v.Headline)
		if show != "" {
			for _, j := range v.Rows {
				if strings.Contains(j.Where(), show) {
					fmt.Println("  " + j.Line())
				}
			}
		}
		if v.Status == compare.Passed || v.Status == compare.Regression {
			return nil
		}
		if last {
			fmt.Println("the budget's last look: the routine would have stopped there, inconclusive")
			return nil
		}
	}
	fmt.Println("the last look: the routine would have stopped there, inconclusive")
	return nil
}

// blocks is the most blocks every side's records reach.
func blocks(runs [][]*record.Record) int {
	least := -1
	for _, side := range runs {
		most := 0
		for _, r := range side {
			if r.Routine != nil {
				most = max(most, r.Routine.Block)
			}
		}
		if least < 0 || most < least {
			least = most
		}
	}
	return max(least, 0)
}
