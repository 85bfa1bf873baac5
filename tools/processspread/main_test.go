package main

import (
	"math"
	"testing"
)

// TestBestIsTheLeast: the interval best gives makes the estimate's
// variance for a wall time least, against intervals half and twice as
// long; processes that do not differ are never worth a restart.
func TestBestIsTheLeast(t *testing.T) {
	within, between, block, restart := 0.13*0.13, 0.02*0.02, 25.0, 80.0
	// Variance of a routine of wall time T, T = 1: (between + within/K)/E
	// with E = 1/(K·block + restart).
	cost := func(k float64) float64 { return (between + within/k) * (k*block + restart) }
	k := best(within, between, block, restart)
	if !(cost(k) < cost(k/2) && cost(k) < cost(2*k) && cost(k) < cost(k*1.1) && cost(k) < cost(k/1.1)) {
		t.Fatalf("best %g: cost %g, half %g, twice %g", k, cost(k), cost(k/2), cost(2*k))
	}
	for _, b := range []float64{0, -0.001} {
		if !math.IsInf(best(within, b, block, restart), 1) || blocks(best(within, b, block, restart)) != "never restart" {
			t.Fatalf("between %g: %g", b, best(within, b, block, restart))
		}
	}
}
