package stats

import (
	"math"
	"testing"
)

func TestWelch(t *testing.T) {
	// Reference values: scipy.ttest_ind(x, y, equal_var=False).
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

func TestPairedP(t *testing.T) {
	if p := PairedP([]float64{0.1, 0.1, 0.1}); p > 1e-12 {
		t.Fatalf("constant nonzero log-ratios: p=%g", p)
	}
	if p := PairedP([]float64{0, 0, 0}); p != 1 {
		t.Fatalf("no change: p=%g", p)
	}
	// Known value: d = 1, 2, 3 → t = 2/sqrt(1/3) = 3.464, df 2, p = 0.0742.
	if p := PairedP([]float64{1, 2, 3}); math.Abs(p-0.0742) > 0.0005 {
		t.Fatalf("p=%g, want 0.0742", p)
	}
}

// TestOneSided: the one-sided paired p-value is half the two-sided one on
// the side the mean lies, and Welch's t has the sign of mean(y) − mean(x).
func TestOneSided(t *testing.T) {
	d := []float64{1, 2, 3}
	if p, two := PairedGreater(d, 0), PairedP(d); math.Abs(p-two/2) > 1e-12 {
		t.Errorf("one-sided %g, two-sided %g", p, two)
	}
	if p := PairedGreater(d, 5); p < 0.5 {
		t.Errorf("mean 2 > 5: p %g, want above 0.5", p)
	}
	if tt, df, ok := WelchT([]float64{1, 2, 3}, []float64{4, 5, 6}); !ok || tt <= 0 || df <= 0 {
		t.Errorf("t %g, df %g, ok %v", tt, df, ok)
	}
	if q := TQuantile(0.975, 1e9); math.Abs(q-1.959964) > 1e-5 {
		t.Errorf("t quantile at large df %g, want the normal's 1.96", q)
	}
}

// TestSpentRest: a design that stops at any look k, before its last,
// spends there what Spent leaves: the looks made never spend more than the
// level, and exactly the level.
func TestSpentRest(t *testing.T) {
	for _, looks := range []int{1, 2, 6, 12, 30} {
		for k := 1; k <= looks; k++ {
			sum := SpentRest(0.05, k, looks)
			for j := 1; j < k; j++ {
				sum += Spent(0.05, j, looks)
			}
			if math.Abs(sum-0.05) > 1e-12 {
				t.Errorf("looks %d, cut at %d: %g spent, want 0.05", looks, k, sum)
			}
		}
	}
}
