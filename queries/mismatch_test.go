package queries

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestMismatch(t *testing.T) {
	cell := func(d, s string, ts int64, v any) Cell { return Cell{Device: d, Sensor: s, Time: ts, Value: v} }
	model := Answer{cell("d_1", "s_0", 0, 1.0), cell("d_1", "s_0", 10, 2.0), cell("d_1", "s_1", 0, 3.0), cell("d_2", "s_0", 0, 4.0)}
	without := func(k int) Answer { return append(append(Answer{}, model[:k]...), model[k+1:]...) }
	with := func(k int, c Cell) Answer { a := append(Answer{}, model...); a[k] = c; return a }
	group := &Query{Family: GroupBy, Aggregate: "avg"}
	raw := &Query{Family: TimeRange}
	agg := &Query{Family: AggRange, Aggregate: "sum"}
	for _, c := range []struct {
		q    *Query
		got  Answer
		want string
	}{
		{group, model, ""},
		{group, with(0, cell("d_1", "s_0", 0, 1.0+1e-12)), ""},
		{group, without(1), "GROUP_BY d_1 s_0: 1 windows, expected 2 (window 10 missing)"},
		{raw, without(3), "TIME_RANGE d_2 s_0: 0 rows, expected 1 (row 0 missing)"},
		{raw, append(Answer{cell("d_0", "s_0", 5, 1.0)}, model...), "TIME_RANGE d_0 s_0: 1 rows, expected 0 (row 5 not in the data)"},
		{raw, with(1, cell("d_1", "s_0", 11, 2.0)), "TIME_RANGE d_1 s_0: row 11, expected 10"},
		{raw, with(2, cell("d_1", "s_1", 0, 3.5)), "TIME_RANGE d_1 s_1: at 0 3.5, expected 3"},
		{agg, with(3, cell("d_2", "s_0", 0, 4.5)), "AGG_RANGE d_2 s_0: sum 4.5, expected 4"},
		{group, with(1, cell("d_1", "s_0", 10, "x")), "GROUP_BY d_1 s_0: avg of window 10 x, expected 2"},
	} {
		if got := Mismatch(c.q, c.got, model); got != c.want {
			t.Errorf("%s: got %q, want %q", c.q.Family, got, c.want)
		}
	}
}

// TestSortAndMatches: a large answer (sorted by keys) comes out as the
// simple sort puts it; Matches accepts any order of the model's cells and
// refuses a changed value, a repeated cell in place of another, a device
// the model lacks.
func TestSortAndMatches(t *testing.T) {
	var want Answer
	for _, d := range []string{"d_1", "d_10", "d_2"} {
		for _, s := range []string{"s_0", "s_11", "s_3"} {
			for ts := int64(0); ts < 200; ts++ {
				want = append(want, Cell{Device: d, Sensor: s, Time: ts, Value: float64(ts) / 3})
			}
		}
	}
	slices.SortFunc(want, compareCells)
	got := slices.Clone(want)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
	if !Matches(got, want) {
		t.Fatal("a shuffled copy does not match")
	}
	sorted := slices.Clone(got)
	sorted.Sort()
	if !slices.EqualFunc(sorted, want, func(a, b Cell) bool { return a == b }) {
		t.Fatal("Sort differs from the simple sort")
	}
	changed := slices.Clone(got)
	changed[17].Value = changed[17].Value.(float64) + 1e-6
	repeated := slices.Clone(got)
	repeated[3] = repeated[4]
	stranger := slices.Clone(got)
	stranger[9].Device = "d_9"
	for name, a := range map[string]Answer{"changed": changed, "repeated": repeated, "stranger": stranger, "short": got[1:]} {
		if Matches(a, want) {
			t.Errorf("%s: matches", name)
		}
	}
}
