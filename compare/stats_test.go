package compare

import (
	"math"
	"strings"
	"testing"
)

func TestWelch(t *testing.T) {
	// Reference values: scipy.stats.ttest_ind(x, y, equal_var=False).
	cases := []struct {
		x, y []float64
		p    float64
	}{
		{[]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 0.0010528257933665399},
		{[]float64{1, 3, 5, 7, 9}, []float64{2, 4, 6, 8, 10}, 0.6305360755569764},
		{[]float64{10.1, 10.3, 9.8, 10.0, 10.2}, []float64{13.0, 12.7, 13.4, 13.1, 12.9}, 9.217999999182789e-08},
		{[]float64{1, 2, 3}, []float64{1.5, 2.5, 10}, 0.4260789987721006},
	}
	for _, c := range cases {
		if p := Welch(c.x, c.y); math.Abs(p-c.p) > 1e-9+1e-6*c.p {
			t.Errorf("Welch(%v, %v) = %.10g, want %.10g", c.x, c.y, p, c.p)
		}
	}
	// No spread on either side: equal is no difference, unequal is certain.
	if p := Welch([]float64{0, 0, 0}, []float64{0, 0, 0}); p != 1 {
		t.Errorf("identical constants: p = %v", p)
	}
	if p := Welch([]float64{0, 0, 0}, []float64{100, 100, 100}); p != 0 {
		t.Errorf("different constants: p = %v", p)
	}
	if p := Welch([]float64{1}, []float64{5, 6}); p != 1 {
		t.Errorf("one run cannot be tested: p = %v", p)
	}
}

func TestHolm(t *testing.T) {
	got := Holm([]float64{0.01, 0.04, 0.03, 0.005})
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("Holm = %v, want %v", got, want)
		}
	}
	if got := Holm([]float64{0.5, 0.9}); got[0] != 1 || got[1] != 1 {
		t.Fatalf("adjusted p-values are capped at 1: %v", got)
	}
	if len(Holm(nil)) != 0 {
		t.Fatal("no rows, no p-values")
	}
}

func TestNeededSamples(t *testing.T) {
	for q, want := range map[float64]int64{90: 100, 99: 1000, 99.9: 10000, 95: 200} {
		if got := neededSamples(q); got != want {
			t.Errorf("P%g needs %d samples, want %d", q, got, want)
		}
	}
}

// TestGateNeedsTheChangeBeyondTheLimit: +12% measured with a run-to-run
// spread of ±5% is worse, but not shown to exceed 10%: noted, not failed;
// +30% with the same spread fails.
func TestGateNeedsTheChangeBeyondTheLimit(t *testing.T) {
	base := latencyRuns("a", 10, 10.5, 9.5, 10.2, 9.8)
	opt := Options{Alpha: 0.05, MinEffect: 5, MinAbsMS: DefaultMinAbsMS}
	c := New(base, []Side{latencyRuns("b", 11.2, 11.7, 10.7, 11.4, 11.0)}, opt)
	if ch := row(t, c, "mean latency", "Q1").Contender[0]; ch.Verdict != "worse" {
		t.Fatalf("+12%% consistently: %+v", ch)
	}
	if v := c.Decide(10, UntestedFail); len(v.Of(Worse)) != 0 || len(v.Of(Inconclusive)) == 0 || !strings.Contains(v.Of(Inconclusive)[0].Line(), "cannot rule out worse by more than 10%") || v.Status != Undetermined {
		t.Fatalf("+12%% ± 5%%: %+v", v.Lines())
	}
	c = New(base, []Side{latencyRuns("b", 13, 13.6, 12.4, 13.3, 12.7)}, opt)
	if v := c.Decide(10, UntestedFail); len(v.Of(Worse)) == 0 || !strings.Contains(v.Of(Worse)[0].Line(), "beyond 10% (p(Holm)=") || v.Status != Regression {
		t.Fatalf("+30%%: %+v", v.Lines())
	}
}
