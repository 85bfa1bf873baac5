package routine

import (
	"strings"
	"testing"

	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/internal/recordtest"
)

// TestOneServerSaid: a routine whose servers were never restarted says
// that its intervals leave out the draw of the two server processes; one
// that restarted them (or had none to keep) does not. The routine's own
// warnings (Unread's) stand in the summary.
func TestOneServerSaid(t *testing.T) {
	order := []string{"PRECISE_POINT"}
	side := func(label string, seed uint64) compare.Side {
		return compare.Side{Label: label, Runs: recordtest.Runs(label, seed, 4, map[string]float64{"PRECISE_POINT": 10}, order)}
	}
	for _, c := range []struct {
		name string
		r    Report
		want bool
	}{
		{"kept running, never restarted", Report{Duet: true, OneServer: true, Warnings: []string{"warning: side pr's conf/datanode-env.sh differs"}}, true},
		{"restarted every 2 blocks", Report{Duet: true, RestartEvery: 2}, false},
		{"stopped before its first restart", Report{Duet: true, RestartEvery: 8}, true},
		{"a server a run", Report{}, false},
	} {
		r := c.r
		r.Out, r.Labels, r.Runs, r.Paired = t.TempDir(), []string{"a", "b"}, 4, true
		r.Comparison = compare.New(side("a", 1), []compare.Side{side("b", 2)}, compare.Options{Alpha: compare.DefaultAlpha, MinEffect: 5, MinAbsMS: compare.DefaultMinAbsMS})
		r.Comparison.Decide(10, compare.UntestedFail)
		sum, err := r.Write()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, w := range r.Warnings {
			if !strings.Contains(string(sum), "\n"+w+"\n") {
				t.Errorf("%s: the warning %q is not in the summary:\n%s", c.name, w, sum)
			}
		}
		if before := strings.Contains(string(sum), "before the first restart"); before != (c.r.RestartEvery > r.Runs) {
			t.Errorf("%s: said it ended before the first restart: %v", c.name, before)
		}
		if got := strings.Contains(string(sum), "\n"+OneServerWords+"\n"); got != c.want {
			t.Errorf("%s: the one-server line said %v, want %v:\n%s", c.name, got, c.want, sum)
		}
	}
}
