package main

import (
	"math"
	"testing"
)

func TestServedRatio(t *testing.T) {
	held := "delayrelay: held 408563 responses, 500.008µs each on average (asked; 0.100 of the server's 5.000088ms), took 500.009µs (0.100 of it), waiting on 134276 of them\n"
	base := "delayrelay: held 408563 responses, 0s each on average (asked; 0.000 of the server's 5.159825ms), took 0s (0.000 of it), waiting on 0 of them\n"
	old := "delayrelay: held 35512 responses, 3.1ms each on average (asked)\n"
	for _, c := range []struct {
		name             string
		contender, basel string
		want             float64
		ok               bool
	}{
		{"both relays said it", held, base, 5.000088 / 5.159825, true},
		{"a relay that did not say it", held, old, 0, false},
		{"no baseline relay", held, "", 0, false},
		{"a zero baseline", held, "(asked; 0.000 of the server's 0s)", 0, false},
	} {
		got, ok := servedRatio([]byte(c.contender), []byte(c.basel))
		if ok != c.ok || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: servedRatio = %v, %v; want %v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}
