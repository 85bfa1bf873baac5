package compare

import (
	"strings"
	"testing"

	"github.com/tsbench/tsbench/internal/recordtest"
)

// TestTelemetryCompared: a phase group's telemetry is compared per source
// (a process under another pid in every run is one source, and so is the
// contender's on another port) and figure: a
// counter by its total, a gauge by its mean, medians over the runs; a
// figure one side did not sample is not reported, not 0; nothing is
// gated unless --gate-server names it.
func TestTelemetryCompared(t *testing.T) {
	b, c := recordtest.TelemetryRuns()
	cmp := New(Side{Label: "base", Runs: b}, []Side{{Label: "cont", Runs: c}}, opts)
	rows := map[string]Row{}
	var keys []string
	for _, r := range cmp.TelemetryRows {
		k := r.Key.Phase + "|" + r.Key.Op + "|" + r.Key.Metric
		rows[k] = r
		keys = append(keys, k)
	}
	want := "main|machine|CPU user main|process (java)|CPU user main|process (java)|resident memory main|process (java)|threads"
	if got := strings.Join(keys, " "); got != want {
		t.Fatalf("rows %s, want %s", got, want)
	}
	cpu := rows["main|process (java)|CPU user"]
	if cpu.Metric.Stat != "total" || cpu.Baseline.Median != 3 || cpu.Contender[0].Median != 6 || cpu.Contender[0].Ratio != 2 || cpu.Contender[0].Verdict != "" {
		t.Errorf("CPU: %s baseline %v, contender %+v; want the total, 3 (2, 3, 4) against 6, ratio 2, no verdict", cpu.Metric.Stat, cpu.Baseline.Median, cpu.Contender[0])
	}
	mem := rows["main|process (java)|resident memory"]
	if mem.Metric.Stat != "mean" || mem.Baseline.Median != 200<<20 || mem.Contender[0].Median != 200<<20 {
		t.Errorf("memory: %s %v vs %v, want the means, 200 MiB each", mem.Metric.Stat, mem.Baseline.Median, mem.Contender[0].Median)
	}
	if th := rows["main|process (java)|threads"]; th.Contender[0].OK || th.Contender[0].Note != "missing in the contender" {
		t.Errorf("threads, sampled by the baseline only: %+v", th.Contender[0])
	}
	if v := cmp.Decide(10, UntestedFail); len(v.Of(Worse)) != 0 {
		t.Errorf("telemetry failed the gate unasked: %q", v.Lines())
	}
	opt := opts
	opt.GateServer = []string{"CPU user", "no such figure"}
	cmp = New(Side{Label: "base", Runs: b}, []Side{{Label: "cont", Runs: c}}, opt)
	v := cmp.Decide(10, UntestedFail)
	if w := v.Of(Worse); len(w) != 1 || !strings.Contains(w[0].Line(), "cont: CPU user of process (java) (main) is worse: 3 → 6 s (medians: +100.00%)") {
		t.Errorf("--gate-server CPU user: regressions %q, want the process's CPU (+100%%) and not the machine's (equal)", v.Lines())
	}
	if u := v.Of(NotTested); len(u) != 1 || !strings.Contains(u[0].Line(), `"no such figure"`) {
		t.Errorf("a name no row has: %q, want it said", v.Lines())
	}
	if err := opt.Check(0, false, UntestedFail); err == nil {
		t.Error("--gate-server without --fail-above: want a usage error")
	}
}
