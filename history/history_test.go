package history

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tsbench/tsbench/changepoint"
	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/internal/recordtest"
)

// weeks are two runs a week for n weeks, Q1 at 5 ms and from week slow on
// at 6.5 ms, started in reverse order so that the order comes from the
// start times, not the list.
func weeks(n, slow int) []Run {
	var out []Run
	t0 := time.Date(2026, 9, 1, 3, 0, 0, 0, time.UTC)
	for w := n; w >= 1; w-- {
		mean := 5.0
		if w >= slow {
			mean = 6.5
		}
		for i := range 2 {
			r := recordtest.Synthetic(fmt.Sprintf("master-w%02d", w), uint64(w*10+i), map[string]float64{"Q1": mean}, []string{"Q1"})
			r.StartedAt = t0.Add(time.Duration(w)*7*24*time.Hour + time.Duration(i)*time.Hour)
			out = append(out, RunOf(r))
		}
	}
	return out
}

func TestBuild(t *testing.T) {
	h, err := Build(weeks(20, 14), []string{"mean latency"}, changepoint.Defaults)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Labels) != 20 || h.Labels[0] != "master-w01" || h.Runs != 40 || len(h.Series) != 1 {
		t.Fatalf("labels %v, %d runs, %d series", h.Labels, h.Runs, len(h.Series))
	}
	s := h.Series[0]
	if p := s.Points[0]; p.Runs != 2 || p.Value < 4.8 || p.Value > 5.2 || len(p.RunsValues) != 2 {
		t.Errorf("a week's point %+v: want the median of its two runs, about 5 ms", p)
	}
	if len(s.Changes) != 1 || s.Changes[0].Before != "master-w13" || s.Changes[0].After != "master-w14" || s.Changes[0].Verdict != "worse" {
		t.Fatalf("changes %+v, want one, worse, between weeks 13 and 14", s.Changes)
	}
	// Week 14 is the 7th newest of 20.
	if r := h.Regressions(7, 20); len(r) != 1 || !strings.Contains(r[0], "worse from master-w14 on (+3") {
		t.Errorf("regressions among the newest 7 beyond 20%%: %q", r)
	}
	if r := h.Regressions(6, 20); len(r) != 0 {
		t.Errorf("the change is not among the newest 6: %q", r)
	}
	if r := h.Regressions(7, 40); len(r) != 0 {
		t.Errorf("a 30%% change is not beyond 40%%: %q", r)
	}
	if _, err := Build(weeks(3, 2), []string{"speed"}, changepoint.Defaults); err == nil || !strings.Contains(err.Error(), `no metric "speed"`) {
		t.Errorf("an unknown metric: %v", err)
	}
}

// An order given places the labels (by label, by the commit after the
// last '-', by a full commit that short one starts); labels it does not
// place are left out and named.
func TestBuildOrdered(t *testing.T) {
	runs := weeks(6, 99) // master-w01 … master-w06, started in that order
	order := []string{"master-w03", "w01", "w06", "w02"}
	h, err := BuildFor(runs, []string{"mean latency"}, Want{Order: order}, changepoint.Defaults)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(h.Labels, " "); got != "master-w03 master-w01 master-w06 master-w02" {
		t.Errorf("labels %s", got)
	}
	if got := strings.Join(h.Unplaced, " "); got != "master-w05 master-w04" && got != "master-w04 master-w05" {
		t.Errorf("unplaced %s", got)
	}
	if h.Runs != 8 {
		t.Errorf("%d runs, want the 8 of the 4 placed labels", h.Runs)
	}
	for label, want := range map[string]int{"master-a2b704d": 1, "pr-a2b704d": 1, "master-a2b704": -1, "x": 2, "master-9f": -1} {
		if got := Place([]string{"ffffffff", "a2b704d3f00d", "x"}, label); got != want {
			t.Errorf("Place(%q) = %d, want %d", label, got, want)
		}
	}
}

// A server figure named is a series too, after compare's metrics: a step
// in it is a change point, "changed", never a regression.
func TestServerSeries(t *testing.T) {
	runs := weeks(20, 99)
	for i := range runs {
		cpu := 14.0
		if runs[i].Label >= "master-w11" {
			cpu = 10.0
		}
		runs[i].Server = []compare.ServerValue{
			{Group: "ingest", Source: "DataNode", Figure: "CPU", Unit: "s", Stat: "total", Value: cpu + float64(i%3)*0.01},
			{Source: "server", Figure: "Bytes per point", Unit: "B", Value: 0.87},
		}
	}
	h, err := BuildFor(runs, []string{"mean latency"}, Want{Server: []string{"CPU"}}, changepoint.Defaults)
	if err != nil {
		t.Fatal(err)
	}
	last := h.Series[len(h.Series)-1]
	if len(h.Series) != 2 || last.Key != (compare.Key{Metric: "CPU (total)", Phase: "ingest", Op: "DataNode"}) || last.Unit != "s" || len(last.Points) != 20 {
		t.Fatalf("series %+v", h.Series)
	}
	if len(last.Changes) != 1 || last.Changes[0].Verdict != "changed" || last.Changes[0].After != "master-w11" {
		t.Errorf("changes %+v, want one, changed, from master-w11", last.Changes)
	}
	if regs := h.Regressions(20, 0); len(regs) != 0 {
		t.Errorf("a server figure gated: %v", regs)
	}
}
