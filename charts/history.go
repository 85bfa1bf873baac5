package charts

import (
	"fmt"

	"github.com/tsbench/tsbench/history"
)

// ForHistory draws each series of a history that has a change point: its
// points in label order, the range of each label's runs as a second line
// pair, and a mark where each change begins, named by its first label. The
// series without a change point are in the tables only.
func ForHistory(h *history.History) Set {
	var set Set
	quiet := 0
	for _, s := range h.Series {
		if len(s.Changes) == 0 || len(s.Points) == 0 {
			quiet++
			continue
		}
		op := s.Key.Op
		if s.Key.Phase != "main" && s.Key.Phase != "" {
			op += " [" + s.Key.Phase + "]"
		}
		c := Chart{Name: "history-" + Slug(s.Key.Metric+" "+op), Title: fmt.Sprintf("%s of %s over %s … %s", s.Key.Metric, op, s.Points[0].Label, s.Points[len(s.Points)-1].Label),
			Kind: Lines, X: Axis{Label: fmt.Sprintf("point, in label order (1 is %s)", s.Points[0].Label)}, Y: Axis{Label: s.Key.Metric + " (" + s.Unit + ")"},
			Caption: "A point is a label's runs' median, the thin lines their lowest and highest run; a dotted line marks a change point at the first label of the new level (package changepoint, Apache Otava's method)."}
		mid, lo, hi := Series{Name: "median of the label's runs", Colour: 0}, Series{Name: "lowest and highest run", Colour: 0, Dash: 1}, Series{Name: "lowest and highest run", Colour: 0, Dash: 1}
		var m, l, u []Point
		for i, p := range s.Points {
			x := float64(i + 1)
			m = append(m, Point{X: x, Y: round3(p.Value)})
			l = append(l, Point{X: x, Y: round3(p.Min)})
			u = append(u, Point{X: x, Y: round3(p.Max)})
		}
		mid.Segments, lo.Segments, hi.Segments = [][]Point{m}, [][]Point{l}, [][]Point{u}
		hi.Run = 2
		c.Series = []Series{mid, lo, hi}
		for _, ch := range s.Changes {
			c.Marks = append(c.Marks, Mark{X: float64(ch.Index) + 0.5, Label: fmt.Sprintf("%s %+.1f%% (%s)", ch.After, ch.Relative()*100, ch.Verdict)})
		}
		set.Charts = append(set.Charts, c)
	}
	if quiet > 0 {
		set.Notes = append(set.Notes, fmt.Sprintf("%d series without a change point are in the tables only.", quiet))
	}
	return unique(set)
}
