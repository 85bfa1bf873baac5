package runner

import (
	"testing"
	"time"
)

// TestETA: the steps' pace gives a phase's time left, unless TEST_MAX_TIME
// ends it sooner: a 30 s run whose step count it will never reach said
// "ETA 92281 s".
func TestETA(t *testing.T) {
	for _, c := range []struct {
		el          time.Duration
		done, total int64
		max         time.Duration
		want        string
	}{
		{10 * time.Second, 50, 100, 0, "10 s"},
		{10 * time.Second, 0, 100, 0, "unknown"},
		{30 * time.Second, 130, 400000, time.Minute, "30 s (TEST_MAX_TIME)"},
		{10 * time.Second, 0, 100, 25 * time.Second, "15 s (TEST_MAX_TIME)"},
		{10 * time.Second, 90, 100, time.Minute, "1 s"},
		{70 * time.Second, 10, 100, time.Minute, "0 s (TEST_MAX_TIME)"},
	} {
		if got := etaText(c.el, c.done, c.total, c.max); got != c.want {
			t.Errorf("%v elapsed, %d of %d, max %v: %q, want %q", c.el, c.done, c.total, c.max, got, c.want)
		}
	}
}
