package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/internal/recordtest"
	"github.com/tsbench/tsbench/record"
)

// blocks makes the runs of a routine: block k's runs share a drift of the
// machine (each block 20% slower than the last), and the contender is
// slower by factor.
func blocks(n int, factor float64) (Side, Side) {
	order := []string{"Q1"}
	var a, b Side
	a.Label, b.Label = "master", "pr"
	for k := 1; k <= n; k++ {
		drift := 10 * math.Pow(1.2, float64(k))
		ra := recordtest.Synthetic("master", uint64(100+k), map[string]float64{"Q1": drift}, order)
		rb := recordtest.Synthetic("pr", uint64(200+k), map[string]float64{"Q1": drift * factor}, order)
		ra.Routine = &record.Routine{Side: "master", Block: k, Position: 1 + k%2}
		rb.Routine = &record.Routine{Side: "pr", Block: k, Position: 2 - k%2}
		a.Runs, b.Runs = append(a.Runs, ra), append(b.Runs, rb)
	}
	// Out of order, as a results folder lists them: pairing sorts by block.
	a.Runs[0], a.Runs[2] = a.Runs[2], a.Runs[0]
	return a, b
}

// TestPairedCancelsSharedDrift: a drift of the machine over the session
// that moves both runs of a block hides a 30% slowdown from the unpaired
// test; tested in pairs within blocks it is found, and an A/A under the
// same drift stays quiet.
func TestPairedCancelsSharedDrift(t *testing.T) {
	o := Options{Alpha: 0.01, MinEffect: 5}
	p := o
	p.Paired = true
	base, slow := blocks(6, 1.3)
	unpaired := row(t, New(base, []Side{slow}, o), "mean latency", "Q1").Contender[0]
	paired := row(t, New(base, []Side{slow}, p), "mean latency", "Q1").Contender[0]
	if unpaired.Paired || unpaired.Verdict == "worse" {
		t.Fatalf("unpaired found the slowdown through the drift: %+v", unpaired)
	}
	if !paired.Paired || paired.Verdict != "worse" || paired.P > 1e-4 || !strings.Contains(paired.Note, "paired") {
		t.Fatalf("paired missed it: %+v", paired)
	}
	cmp := New(base, []Side{slow}, p)
	if v := cmp.Decide(10, UntestedFail); len(v.Of(Worse)) == 0 {
		t.Fatalf("the paired gate passed a 30%% slowdown: %+v", v.Lines())
	}
	if v := New(base, []Side{slow}, o).Decide(10, UntestedFail); len(v.Of(Worse)) != 0 || v.Status != Undetermined {
		t.Fatalf("the unpaired gate saw it through the drift, or passed it: %+v", v.Lines())
	}
	// The gate's threshold in pairs: the slowdown is 30%, not 40%, and
	// the pairs prove it within 40%.
	if v := cmp.Decide(40, UntestedFail); len(v.Of(Worse)) != 0 || v.Status != Passed {
		t.Fatalf("a 30%% slowdown at --fail-above 40: %v", v.Lines())
	}
	base, same := blocks(6, 1)
	for _, r := range New(base, []Side{same}, p).Rows {
		if ch := r.Contender[0]; ch.Verdict == "worse" || ch.Verdict == "better" {
			t.Fatalf("A/A under drift: %s %s", r.Key.Metric, ch.Note)
		}
	}
}

// TestPairedNeedsBlocks: runs made by hand have no blocks; a side with a
// run missing from a block cannot pair. Both are tested unpaired, and
// the comparison says so.
func TestPairedNeedsBlocks(t *testing.T) {
	p := Options{Alpha: 0.01, MinEffect: 5, Paired: true}
	order := []string{"Q1"}
	hand := New(side("a", 1, 5, map[string]float64{"Q1": 5}, order), []Side{side("b", 2, 5, map[string]float64{"Q1": 5}, order)}, p)
	if !strings.Contains(hand.Unpaired, "was not made by bench routine") || hand.Options.Paired {
		t.Fatalf("runs by hand: %q", hand.Unpaired)
	}
	base, slow := blocks(6, 1.3)
	slow.Runs = slow.Runs[1:]
	short := New(base, []Side{slow}, p)
	if !strings.Contains(short.Unpaired, "ran in blocks") {
		t.Fatalf("a missing block: %q", short.Unpaired)
	}
	if ch := row(t, short, "mean latency", "Q1").Contender[0]; ch.Paired {
		t.Fatalf("tested in pairs without pairs: %+v", ch)
	}
}
