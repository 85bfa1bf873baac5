package changepoint

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// levels is a series of the given levels, each n points long, with
// normal noise of sd, drawn from seed.
func levels(seed uint64, n int, sd float64, means ...float64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	var out []float64
	for _, m := range means {
		for range n {
			out = append(out, m+sd*rng.NormFloat64())
		}
	}
	return out
}

func indexes(cs []Change) []int {
	var out []int
	for _, c := range cs {
		out = append(out, c.Index)
	}
	return out
}

func TestFind(t *testing.T) {
	for _, c := range []struct {
		name   string
		series []float64
		want   []int
	}{
		{"a step up of 10% in noise of 1%", levels(1, 40, 1, 100, 110), []int{40}},
		{"down and back up", levels(2, 30, 1, 100, 80, 100), []int{30, 60}},
		{"a 3% slowdown among 2% noise over 100 points", levels(3, 50, 2, 100, 103), []int{50}},
		{"a long history, changes in several windows", levels(4, 45, 1, 100, 95, 105, 105, 90), []int{45, 90, 180}},
		{"A/A: one level, 100 points", levels(5, 100, 2, 100), nil},
		{"constant", []float64{5, 5, 5, 5, 5, 5, 5, 5}, nil},
		{"one point", []float64{1}, nil},
		{"empty", nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Find(c.series, Defaults)
			if err != nil {
				t.Fatal(err)
			}
			// A change is found where it is or a point beside it (noise can
			// make the boundary's point look like either level).
			near := len(got) == len(c.want)
			for i := range c.want {
				near = near && math.Abs(float64(got[i].Index-c.want[i])) <= 1
			}
			if !near {
				t.Fatalf("change points at %v, want %v (%+v)", indexes(got), c.want, got)
			}
			for _, ch := range got {
				if !(ch.P < Defaults.MaxP) {
					t.Errorf("change at %d kept with p=%g", ch.Index, ch.P)
				}
			}
		})
	}
}

// TestChangeFigures: a change's levels, spread and relative change are
// those of the points on each side of it.
func TestChangeFigures(t *testing.T) {
	s := []float64{10, 11, 10, 9, 10, 11, 10, 9, 14, 15, 14, 13, 14, 15, 14, 13}
	got, err := Find(s, Options{Window: 16, MaxP: 0.01})
	if err != nil || len(got) != 1 {
		t.Fatalf("%+v %v", got, err)
	}
	c := got[0]
	if c.Index != 8 || c.MeanBefore != 10 || c.MeanAfter != 14 || math.Abs(c.Relative()-0.4) > 1e-12 {
		t.Errorf("%+v, want at 8 from 10 to 14, +40%%", c)
	}
	// Population standard deviations, as Otava's: sqrt(4/8).
	if sd := math.Sqrt(0.5); math.Abs(c.StdBefore-sd) > 1e-12 || math.Abs(c.StdAfter-sd) > 1e-12 {
		t.Errorf("std %g and %g, want %g", c.StdBefore, c.StdAfter, sd)
	}
	// Student's t with 14 degrees of freedom, pooled from the population
	// variances as Otava passes them: t = 4/sqrt(0.5*(1/8+1/8)) = 11.3.
	if !(c.P > 1e-8 && c.P < 1e-7) {
		t.Errorf("p %g, want about 2e-8 (t = 11.3, 14 degrees of freedom)", c.P)
	}
}

// TestDeterministic: the same series, the same answer.
func TestDeterministic(t *testing.T) {
	s := levels(9, 60, 3, 100, 104, 98)
	a, _ := Find(s, Defaults)
	for range 5 {
		if b, _ := Find(slices.Clone(s), Defaults); !slices.Equal(indexes(a), indexes(b)) {
			t.Fatalf("%v then %v", indexes(a), indexes(b))
		}
	}
}

// TestMinMagnitude drops a significant change smaller than it.
func TestMinMagnitude(t *testing.T) {
	s := levels(3, 50, 0.1, 100, 101)
	if got, _ := Find(s, Defaults); len(got) != 1 {
		t.Fatalf("a 1%% step in 0.1%% noise: %v", indexes(got))
	}
	o := Defaults
	o.MinMagnitude = 0.02
	if got, _ := Find(s, o); len(got) != 0 {
		t.Errorf("a 1%% step with a minimum of 2%%: %v", indexes(got))
	}
}

func TestCheck(t *testing.T) {
	for _, o := range []Options{{Window: 1, MaxP: 0.01}, {Window: 10, MaxP: 0}, {Window: 10, MaxP: 1}, {Window: 10, MaxP: math.NaN()}, {Window: 10, MaxP: 0.01, MinMagnitude: -1}} {
		if _, err := Find([]float64{1, 2}, o); err == nil {
			t.Errorf("%+v: want an error", o)
		}
	}
}

// BenchmarkFind is a year of weekly results twice over, 104 points with
// two changes, at Otava's defaults.
func BenchmarkFind(b *testing.B) {
	s := levels(11, 35, 2, 100, 90, 100)[:104]
	for b.Loop() {
		if _, err := Find(s, Defaults); err != nil {
			b.Fatal(err)
		}
	}
}

// pairwise is E-divisive's search written as the formula reads, every
// sum over pairs done again for each (τ, κ): what candidate computed
// before its sums ran.
func pairwise(w []float64, s, e int) (int, float64) {
	bestQ, best := math.Inf(-1), 0
	for tau := s + 1; tau < e; tau++ {
		n := float64(tau - s)
		withinX := 0.0
		for i := s; i < tau; i++ {
			for k := i + 1; k < tau; k++ {
				withinX += math.Abs(w[i] - w[k])
			}
		}
		for kappa := s + 2; kappa <= e; kappa++ {
			q := 0.0
			if kappa > tau {
				m := float64(kappa - tau)
				cross, withinY := 0.0, 0.0
				for i := s; i < tau; i++ {
					for j := tau; j < kappa; j++ {
						cross += math.Abs(w[i] - w[j])
					}
				}
				for j := tau; j < kappa; j++ {
					for k := j + 1; k < kappa; k++ {
						withinY += math.Abs(w[j] - w[k])
					}
				}
				q = energy(n, m, cross, withinX, withinY)
			}
			if q > bestQ {
				best, bestQ = tau, q
			}
		}
	}
	return best, bestQ
}

// TestCandidate holds the running sums to the formula: the same split and
// the same Q but for rounding, on noisy levels, integers with ties,
// constants, outliers and every sub-window of a series.
func TestCandidate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ints := make([]float64, 60)
	for i := range ints {
		ints[i] = float64(rng.IntN(4))
	}
	spikes := levels(9, 30, 1, 10, 10)
	spikes[7], spikes[40] = 500, -300
	series := map[string][]float64{
		"steps":     levels(1, 20, 3, 100, 130, 90),
		"noise":     levels(2, 50, 1, 5),
		"integers":  ints,
		"constant":  slices.Repeat([]float64{7}, 40),
		"outliers":  spikes,
		"two":       {1, 2},
		"variance":  append(levels(5, 25, 0.1, 50), levels(6, 25, 10, 50)...),
		"monotonic": {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
	}
	for name, w := range series {
		for s := 0; s < len(w); s += 7 {
			for e := s + 2; e <= len(w); e += 5 {
				gi, gq := candidate(w, s, e)
				wi, wq := pairwise(w, s, e)
				if gi != wi || math.Abs(gq-wq) > 1e-9*math.Max(1, math.Abs(wq)) {
					t.Errorf("%s[%d:%d]: split %d Q %v, the formula gives %d Q %v", name, s, e, gi, gq, wi, wq)
				}
			}
		}
	}
}

// TestNoChangeInDust: a flat series, and one whose levels differ in their
// last bit only (medians summed in another order), had "+0.0%" change
// points at a loose p; a single point after a spread-less level had p = 0.
// None is a change point now; two flat levels of several points still are.
func TestNoChangeInDust(t *testing.T) {
	ulp := math.Nextafter(0.3, 1)
	loose := Options{Window: 50, MaxP: 0.99}
	for name, s := range map[string][]float64{
		"flat 0.1":          slices.Repeat([]float64{0.1}, 30),
		"flat 1/3":          slices.Repeat([]float64{1.0 / 3}, 17),
		"a last bit apart":  append(slices.Repeat([]float64{0.3}, 10), slices.Repeat([]float64{ulp}, 10)...),
		"one point after 0": append(slices.Repeat([]float64{0}, 12), 50),
		"one point before":  append([]float64{7}, slices.Repeat([]float64{2}, 12)...),
	} {
		if got, err := Find(s, loose); err != nil || len(got) != 0 {
			t.Errorf("%s: %+v %v, want no change point", name, got, err)
		}
	}
	two := append(slices.Repeat([]float64{0}, 6), slices.Repeat([]float64{50}, 6)...)
	if got, _ := Find(two, Defaults); len(got) != 1 || got[0].Index != 6 || got[0].P != 0 {
		t.Errorf("two flat levels: %+v, want one change at 6 with p = 0", got)
	}
}
