package main

import (
	"math"
	"testing"
)

// TestWarmupDistance: a warm-up block's distance is from its process's
// measured mean, a measured block's from the others' mean. A warm-up block
// at the mean lies nowhere; one far out lies farther than the blocks do,
// and its signed distance says which way.
func TestWarmupDistance(t *testing.T) {
	xs := []float64{0.00, 0.02, -0.02, 0.00} // mean 0
	var s sums
	s.add(0, xs)
	// Leave-one-out: 0 from mean(0.02,-0.02,0)=0; 0.02 from -0.02/3; …
	want := 0.0
	for i, x := range xs {
		sum := 0.0
		for j, y := range xs {
			if j != i {
				sum += y
			}
		}
		e := x - sum/3
		want += e * e
	}
	if s.warm != 0 || s.warmSigned != 0 || s.nWarm != 1 || s.nMeasured != 4 || math.Abs(s.measured-want) > 1e-12 {
		t.Fatalf("a warm-up block at the mean: %+v, want warm 0 and measured %g over 4", s, want)
	}
	s.add(-0.10, xs)
	if s.nWarm != 2 || math.Abs(s.warm-0.01) > 1e-12 || math.Abs(s.warmSigned+0.10) > 1e-12 {
		t.Fatalf("a warm-up block 10%% below: %+v", s)
	}
	if w, m := math.Sqrt(s.warm/float64(s.nWarm)), math.Sqrt(s.measured/float64(s.nMeasured)); w <= m {
		t.Fatalf("warm-up RMS %g not above the measured blocks' %g", w, m)
	}
}
