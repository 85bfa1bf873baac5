package compare

import "testing"

// TestChangeWords: the medians' change stands alone beside an interval
// made around it, and is named as the medians' beside one made around
// another estimate, so that no percent sits beside an interval that
// leaves it out.
func TestChangeWords(t *testing.T) {
	for _, c := range []struct {
		change float64
		iv     *Interval
		want   string
	}{
		{4.1, nil, ", +4.10%"},
		{428.76, &Interval{Lo: 428.76, Hi: 428.76, Est: 428.76}, ", +428.76% [+428.76%, +428.76%]"},
		{-13.37, &Interval{Lo: -19.37, Hi: -12.57, Est: -16.04}, " (medians: -13.37%), estimated -16.04% [-19.37%, -12.57%]"},
		{0, &Interval{Lo: -0.1, Hi: 0.1, Abs: true, Est: 0.02}, ", +0.00% [-0.1, +0.1]"},
	} {
		if got := ChangeWords(c.change, c.iv); got != c.want {
			t.Errorf("%v %+v: %q, want %q", c.change, c.iv, got, c.want)
		}
	}
}
