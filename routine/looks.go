package routine

import (
	"math"
	"time"
)

// LookGrowth is how much the runs a side grow from one look of a
// sequential routine to the next. Every look spends a share of the
// levels, so looks after every pair of blocks spend them thin exactly
// where a long routine needs them (a noisy row that only many runs settle);
// looks a quarter apart reach five times the first look's runs in eight
// looks, at each look's levels several times those of a look every pair.
const LookGrowth = 1.25

// DefaultLooks is the most looks of a routine with a budget: from 6 runs a
// side they reach 150, about what an IoTDB duet makes in 30 minutes at
// 12 s a block (96 runs a side took 19 minutes with 11 left, where 12
// looks ended); on a loaded machine the budget ends it near 90. The look
// the budget ends spends the levels left, so looks it does not reach cost
// only the thinner share of the earlier ones (docs/weekly-regression.md).
const DefaultLooks = 14

// DefaultBudget is bench routine's budget when neither --budget nor --runs
// is given: a routine then stops when it knows, within half an hour.
const DefaultBudget = 30 * time.Minute

// LookRuns is the runs a side at each look of a sequential routine of at
// most looks looks, the first after first runs a side: each a quarter more
// than the one before, every look a whole number of units (LookUnit: pairs
// of blocks, so that the order stays balanced at every look, or whole
// server processes) and at least one unit more than the one before. A
// schedule that would pass MaxRuns ends before it: it may have fewer looks
// than asked.
func LookRuns(first, looks, unit int) []int {
	out := []int{roundUp(first, unit)}
	for len(out) < looks {
		n := out[len(out)-1]
		step := max(unit, roundUp(int(math.Ceil(float64(n)*(LookGrowth-1))), unit))
		if n+step > MaxRuns {
			break
		}
		out = append(out, n+step)
	}
	return out
}

// Schedule is the runs a side at each look of a sequential routine whose
// first look comes after runs runs a side, of at most looks looks, that
// restarts its servers every restartEvery blocks (0: never), and the unit
// every look comes after a whole number of (LookUnit). With restarts the
// looks come after whole server processes, the first after MinProcesses
// of them at least. A routine of one look makes runs runs a side, as asked.
func Schedule(runs, looks, restartEvery int) (schedule []int, unit int) {
	if looks <= 1 || restartEvery <= 0 {
		return LookRuns(runs, looks, 2), 2
	}
	unit = LookUnit(restartEvery)
	return LookRuns(max(runs, MinProcesses*restartEvery), looks, unit), unit
}

// MinProcesses is the server processes a side that the first look of a
// sequential routine with --restart-every waits for. Its rows are tested
// with a process a sample: with two processes a side the test has one
// degree of freedom, and its intervals are too wide to decide anything
// while the look still spends its share of the levels.
const MinProcesses = 3

// LookUnit is what every look of a sequential routine that restarts its
// servers every restartEvery blocks (0: never) comes after a whole number
// of: a pair of blocks, or whole server processes that make whole pairs
// (two processes of an odd number of blocks). A look in the middle of a
// process would test its first blocks as a process of their own, noisier
// than the others and weighed as much.
func LookUnit(restartEvery int) int {
	switch {
	case restartEvery <= 0:
		return 2
	case restartEvery%2 == 1:
		return 2 * restartEvery
	}
	return restartEvery
}

// roundUp is n rounded up to a whole number of units.
func roundUp(n, unit int) int {
	return (n + unit - 1) / unit * unit
}

// LooksMade is the looks a sequential routine made (and spent its levels
// on) in its first blocks blocks, at the runs a side of schedule
// (LookRuns): the last never, since it would have ended the routine.
func LooksMade(schedule []int, blocks int) int {
	n := 0
	for _, b := range schedule[:len(schedule)-1] {
		if b <= blocks {
			n++
		}
	}
	return n
}
