package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tsbench/tsbench/history"
)

// HistoryTables lays a history out: each series with its first and latest
// points and how many change points it has, then every change point, where
// it is (between two labels), the levels before and after and its p-value.
func HistoryTables(h *history.History, title string) []Table {
	first, last := "-", "-"
	if n := len(h.Labels); n > 0 {
		first, last = h.Labels[0], h.Labels[n-1]
	}
	s := Table{Title: fmt.Sprintf("History of %s: %d runs, %d labels, %s … %s", title, h.Runs, len(h.Labels), first, last),
		Header: []string{"Metric", "Operation", "Points", "First", "Latest", "Unit", "Change points"}, LeftColumns: 2}
	c := Table{Title: "Change points", Header: []string{"Metric", "Operation", "Before (last label)", "After (first label)", "Level before", "Level after", "Unit", "Change", "p", "Verdict"}, LeftColumns: 4}
	for _, se := range h.Series {
		if len(se.Points) == 0 {
			continue
		}
		op := opLabelOf(se.Key.Op, se.Key.Phase)
		s.Rows = append(s.Rows, []string{se.Key.Metric, op, strconv.Itoa(len(se.Points)), num(se.Points[0].Value), num(se.Points[len(se.Points)-1].Value), se.Unit, strconv.Itoa(len(se.Changes))})
		for _, ch := range se.Changes {
			c.Rows = append(c.Rows, []string{se.Key.Metric, op, ch.Before, ch.After, num(ch.MeanBefore), num(ch.MeanAfter), se.Unit, fmt.Sprintf("%+.1f%%", ch.Relative()*100), strconv.FormatFloat(ch.P, 'g', 2, 64), ch.Verdict})
		}
	}
	o := h.Options
	s.Notes = []string{fmt.Sprintf("A point is a label's runs' median, labels in the order their first runs started. Change points: E-divisive means over windows of %d points, kept at p < %g (Student's t-test between the neighbouring levels), relative change above %g%% (Apache Otava's method; package changepoint).", o.Window, o.MaxP, o.MinMagnitude*100)}
	if len(c.Rows) == 0 {
		s.Notes = append(s.Notes, "No change point in any series.")
		return []Table{s}
	}
	return []Table{s, c}
}

// opLabelOf names an operation with its phase group, as compare's tables do.
func opLabelOf(op, phase string) string {
	if phase == "main" || phase == "" {
		return op
	}
	return op + " [" + strings.TrimSpace(phase) + "]"
}
