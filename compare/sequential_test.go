package compare

import (
	"math"
	"testing"

	"github.com/tsbench/tsbench/internal/recordtest"
)

// TestAtLookKeepsErrorRatesUnderOptionalStopping simulates bench routine
// --budget: up to 6 looks, after 4, 6, 8, 10, 14 and 18 runs a side
// (routine.LookRuns(4, 6)), stopping at the first look that decides every
// gated row or finds a regression; and the same with a budget that ends
// before the fifth look, which is then made after 12 runs a side at the
// levels left (AtLastLook). An A/A with the gate at 0% must claim "worse" (a false
// alarm) in at most α of the routines, and a contender worse by exactly the
// limit must be claimed "within" (a false pass) in at most (1−confidence)/2:
// with each look at the full levels both rates grow with the looks, which
// is what AtLook's spending is for.
func TestAtLookKeepsErrorRatesUnderOptionalStopping(t *testing.T) {
	if testing.Short() {
		t.Skip("a simulation of 2 × 300 routines")
	}
	const (
		routines = 300
		looks    = 6
	)
	schedule := []int{4, 6, 8, 10, 14, 18}
	order := []string{"PRECISE_POINT"}
	base := Options{Alpha: 0.05, Confidence: 0.90}
	// rate runs the routines and counts the ones that end with want.
	rate := func(slower float64, failAbove float64, want string, spend bool, cut int) float64 {
		n := 0
		for r := range routines {
			most := schedule[looks-1]
			seed := uint64(r + 1)
			a := recordtest.Runs("a", seed, most, map[string]float64{"PRECISE_POINT": 10}, order)
			b := recordtest.Runs("b", seed+100000, most, map[string]float64{"PRECISE_POINT": 10 * slower}, order)
			for k := 1; k <= looks; k++ {
				runs := schedule[k-1]
				o := base
				switch {
				case spend && k == cut:
					runs = schedule[k-2] + 4
					o = base.AtLastLook(k, looks)
				case spend:
					o = base.AtLook(k, looks)
				}
				c := New(Side{Label: "a", Runs: a[:runs]}, []Side{{Label: "b", Runs: b[:runs]}}, o)
				v := c.Decide(failAbove, UntestedFail)
				if v.Status == want {
					n++
					break
				}
				if v.Status != Undetermined || k == cut {
					break
				}
			}
		}
		return float64(n) / routines
	}
	// The bound: the level plus three standard errors of a rate at it.
	bound := func(level float64) float64 { return level + 3*math.Sqrt(level*(1-level)/routines) }
	for _, c := range []struct {
		name              string
		slower, failAbove float64
		want              string
		level             float64
	}{
		{"false alarms of an A/A gated at 0%", 1, 0, Regression, 0.05},
		{"false passes of a change at the limit", 1.03, 3, Passed, 0.05},
	} {
		spent, cut, full := rate(c.slower, c.failAbove, c.want, true, 0), rate(c.slower, c.failAbove, c.want, true, 5), rate(c.slower, c.failAbove, c.want, false, 0)
		t.Logf("%s: %.3f with the levels spent, %.3f with the fifth look cut short, %.3f with each look at the full levels (%d routines of up to %d looks)", c.name, spent, cut, full, routines, looks)
		for _, got := range []float64{spent, cut} {
			if got > bound(c.level) {
				t.Errorf("%s: %.3f of the routines, above %g (+3 standard errors: %.3f)", c.name, got, c.level, bound(c.level))
			}
		}
	}
}
