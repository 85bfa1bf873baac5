package report

import (
	"math"
	"sort"
)

// MannWhitney is the two-sided Mann–Whitney U test of samples x and y, as
// benchstat uses it: exact when there are no ties and the samples are small,
// the normal approximation with tie correction otherwise. It returns the
// p-value and the smallest p-value these sample sizes could ever give (if
// that is not below α, no difference can be significant).
func MannWhitney(x, y []float64) (p, minP float64) {
	n1, n2 := len(x), len(y)
	if n1 == 0 || n2 == 0 {
		return 1, 1
	}
	type obs struct {
		v    float64
		left bool
	}
	all := make([]obs, 0, n1+n2)
	for _, v := range x {
		all = append(all, obs{v, true})
	}
	for _, v := range y {
		all = append(all, obs{v, false})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v < all[j].v })
	// Ranks with ties averaged; collect tie sizes for the correction.
	ranks := make([]float64, len(all))
	var tieSum float64
	ties := false
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		r := float64(i+j+1) / 2 // mean of ranks i+1..j
		for k := i; k < j; k++ {
			ranks[k] = r
		}
		if t := float64(j - i); t > 1 {
			ties = true
			tieSum += t*t*t - t
		}
		i = j
	}
	r1 := 0.0
	for i, o := range all {
		if o.left {
			r1 += ranks[i]
		}
	}
	u1 := r1 - float64(n1*(n1+1))/2
	minP = math.Min(1, 2/binom(n1+n2, n1))
	if !ties && n1*n2 <= 400 {
		return exactP(n1, n2, u1), minP
	}
	n := float64(n1 + n2)
	mu := float64(n1*n2) / 2
	sigma := math.Sqrt(float64(n1*n2) / 12 * ((n + 1) - tieSum/(n*(n-1))))
	if sigma == 0 {
		return 1, minP
	}
	z := (math.Abs(u1-mu) - 0.5) / sigma // continuity correction
	if z < 0 {
		z = 0
	}
	return math.Min(1, math.Erfc(z/math.Sqrt2)), minP
}

// exactP counts the arrangements of the two samples whose U is at least as
// extreme as u (both tails).
func exactP(n1, n2 int, u float64) float64 {
	// f[i][j][k]: arrangements of i x-values and j y-values with U = k.
	maxU := n1 * n2
	prev := make([][]float64, n2+1)
	for j := range prev {
		prev[j] = make([]float64, maxU+1)
		prev[j][0] = 1 // i = 0: U is 0
	}
	for i := 1; i <= n1; i++ {
		cur := make([][]float64, n2+1)
		for j := range cur {
			cur[j] = make([]float64, maxU+1)
		}
		cur[0][0] = 1
		for j := 1; j <= n2; j++ {
			for k := 0; k <= i*j; k++ {
				// the largest value is an x (it beats all j y's) or a y
				v := cur[j-1][k]
				if k >= j {
					v += prev[j][k-j]
				}
				cur[j][k] = v
			}
		}
		prev = cur
	}
	dist := prev[n2]
	total := binom(n1+n2, n1)
	lo, hi := 0.0, 0.0
	for k, c := range dist {
		if float64(k) <= u {
			lo += c
		}
		if float64(k) >= u {
			hi += c
		}
	}
	return math.Min(1, 2*math.Min(lo, hi)/total)
}

func binom(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
