package routine

import (
	"slices"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/record"
)

// TestDone: the runs made are the complete ones at the head of the order,
// whole duet blocks only; a failed run, and whatever follows a gap, is
// left over; warm-up runs are neither.
func TestDone(t *testing.T) {
	names := []string{"a", "b"}
	slots := Order(2, 4, 3)
	rec := func(i int, status string) *record.Record {
		sl := slots[i]
		return &record.Record{ID: string(rune('0' + i)), Status: status, Routine: &record.Routine{Side: names[sl.Side], Block: sl.Block, Position: sl.Position}}
	}
	warm := &record.Record{ID: "w", Status: record.StatusComplete, Routine: &record.Routine{Side: "a", Warmup: true}}
	recs := []*record.Record{rec(0, record.StatusComplete), rec(1, record.StatusComplete), rec(2, record.StatusComplete), rec(3, record.StatusFailed), rec(5, record.StatusComplete), warm}
	ids := func(rs []*record.Record) string {
		var out []string
		for _, r := range rs {
			out = append(out, r.ID)
		}
		slices.Sort(out)
		return strings.Join(out, " ")
	}
	if done, left := Done(slots, names, recs, 1); done != 3 || ids(left) != "3 5" {
		t.Errorf("alone: %d done, left %q; want 3, \"3 5\"", done, ids(left))
	}
	// A duet's block is made whole or not at all: run 3 alone is left.
	if done, left := Done(slots, names, recs, 2); done != 2 || ids(left) != "2 3 5" {
		t.Errorf("duet: %d done, left %q; want 2, \"2 3 5\"", done, ids(left))
	}
	if done, left := Done(slots, names, nil, 1); done != 0 || len(left) != 0 {
		t.Errorf("nothing made: %d, %v", done, left)
	}
}

// TestStateChanged: what --resume refuses, a sentence each; secrets are
// never in the state.
func TestStateChanged(t *testing.T) {
	was := &State{Tool: "v1", Config: "c.properties", ConfigSHA256: "aa", Seed: 7, Inputs: []string{"--runs=4", "--set=LOOP=10"}, Sides: []string{"a: IoTDB 2.0.10"}}
	same := *was
	if got := was.Changed(&same); len(got) != 0 {
		t.Errorf("no change: %q", got)
	}
	now := &State{Tool: "v2", Config: "c.properties", ConfigSHA256: "bb", Seed: 8, Inputs: []string{"--runs=4", "--set=LOOP=20"}, Sides: []string{"a: IoTDB 2.0.11"}}
	want := []string{"the tsbench build was v1, now v2", "the configuration c.properties changed (or another file is given: c.properties)", "--order-seed was 7, now 8",
		"--set=LOOP=10 was given, and is not now", "--set=LOOP=20 is new", "side a: IoTDB 2.0.10 was given, and is not now", "side a: IoTDB 2.0.11 is new"}
	if got := was.Changed(now); !slices.Equal(got, want) {
		t.Errorf("changed\n%q\nwant\n%q", got, want)
	}
	secret := func(k string) bool { return k == "PASSWORD" || k == "ES_API_KEY" }
	got := maskSets([]string{"PASSWORD=hunter2", "b:es_api_key=abc", "START_COMMAND=echo a:b=c", "b:LOOP=3"}, secret)
	if want := []string{"PASSWORD=******", "b:es_api_key=******", "START_COMMAND=echo a:b=c", "b:LOOP=3"}; !slices.Equal(got, want) {
		t.Errorf("masked %q, want %q", got, want)
	}
}

// TestLooksMade: a resumed sequential routine (first look after 4 blocks,
// at most 14) counts the looks it already spent, so that its next look
// tests at the next look's levels.
func TestLooksMade(t *testing.T) {
	for _, c := range []struct{ blocks, want int }{{0, 0}, {3, 0}, {4, 1}, {5, 1}, {6, 2}, {12, 5}, {13, 5}} {
		if got := LooksMade(4, 14, c.blocks); got != c.want {
			t.Errorf("after %d blocks: %d looks, want %d", c.blocks, got, c.want)
		}
	}
}
