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
// than the one before, rounded up to whole pairs of blocks (so that the
// order stays balanced at every look), and at least one pair more. A
// schedule that would pass MaxRuns ends before it: it may have fewer looks
// than asked.
func LookRuns(first, looks int) []int {
	out := []int{first}
	for len(out) < looks {
		n := out[len(out)-1]
		pairs := max(1, int(math.Ceil(float64(n)*(LookGrowth-1)/2)))
		if n+2*pairs > MaxRuns {
			break
		}
		out = append(out, n+2*pairs)
	}
	return out
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
