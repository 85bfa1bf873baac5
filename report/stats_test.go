package report

import (
	"math"
	"testing"
)

func TestMannWhitney(t *testing.T) {
	// Reference values (scipy.stats.mannwhitneyu, two-sided, exact method).
	cases := []struct {
		x, y []float64
		p    float64
	}{
		{[]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 0.007937},
		{[]float64{1, 3, 5, 7, 9}, []float64{2, 4, 6, 8, 10}, 0.690476},
		{[]float64{1, 2, 3}, []float64{4, 5, 6}, 0.1},
		{[]float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}, 0.028571},
	}
	for _, c := range cases {
		p, _ := MannWhitney(c.x, c.y)
		if math.Abs(p-c.p) > 1e-5 {
			t.Errorf("MannWhitney(%v, %v) p = %.6f, want %.6f", c.x, c.y, p, c.p)
		}
	}
	if _, minP := MannWhitney([]float64{1, 2, 3}, []float64{4, 5, 6}); math.Abs(minP-0.1) > 1e-9 {
		t.Errorf("min p of 3+3 = %v, want 0.1: 3 runs a side can never be significant at 0.05", minP)
	}
	// Ties: the normal approximation; identical samples are not different.
	if p, _ := MannWhitney([]float64{1, 1, 1, 2}, []float64{1, 1, 1, 2}); p < 0.99 {
		t.Errorf("identical samples p = %v", p)
	}
}
