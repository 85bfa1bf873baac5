package routine

import (
	"slices"
	"strings"
	"testing"
	"time"

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

// TestLooksMade: a resumed sequential routine (looks after 4, 6, 8, 10,
// 14 and 18 blocks) counts the looks it already spent, so that its next
// look tests at the next look's levels; the last look ends the routine and
// is never counted.
func TestLooksMade(t *testing.T) {
	schedule := LookRuns(4, 6, 2)
	if want := []int{4, 6, 8, 10, 14, 18}; !slices.Equal(schedule, want) {
		t.Fatalf("LookRuns(4, 6) = %v, want %v", schedule, want)
	}
	for _, c := range []struct{ blocks, want int }{{0, 0}, {3, 0}, {4, 1}, {5, 1}, {6, 2}, {12, 4}, {14, 5}, {17, 5}, {18, 5}} {
		if got := LooksMade(schedule, c.blocks); got != c.want {
			t.Errorf("after %d blocks: %d looks, want %d", c.blocks, got, c.want)
		}
	}
}

// TestLookRuns: the looks grow by a quarter, in whole pairs of blocks and
// at least one pair, and a schedule stops short of MaxRuns.
func TestLookRuns(t *testing.T) {
	for _, c := range []struct {
		first, looks int
		want         []int
	}{
		{6, 12, []int{6, 8, 10, 14, 18, 24, 30, 38, 48, 60, 76, 96}},
		{10, 3, []int{10, 14, 18}},
		{4, 1, []int{4}},
		{MaxRuns / 2, 5, []int{5000, 6250, 7814, 9768}},
	} {
		if got := LookRuns(c.first, c.looks, 2); !slices.Equal(got, c.want) {
			t.Errorf("LookRuns(%d, %d) = %v, want %v", c.first, c.looks, got, c.want)
		}
	}
	for looks := 2; looks < 200; looks++ {
		s := LookRuns(2, looks, 2)
		for i := 1; i < len(s); i++ {
			if d := s[i] - s[i-1]; d < 2 || d%2 != 0 || float64(s[i]) < float64(s[i-1])*LookGrowth {
				t.Fatalf("LookRuns(2, %d): %d after %d", looks, s[i], s[i-1])
			}
		}
		if s[len(s)-1] > MaxRuns {
			t.Fatalf("LookRuns(2, %d) ends at %d, past MaxRuns", looks, s[len(s)-1])
		}
	}
}

// TestNextLook: a routine looks next where its schedule says, unless its
// budget ends before: then after the pairs of blocks that fit, as its last
// look, or not at all when not one pair fits.
func TestNextLook(t *testing.T) {
	for _, c := range []struct {
		name      string
		scheduled int
		left      time.Duration
		budget    bool
		next      int
		cut       bool
	}{
		{"no budget", 14, 0, false, 14, false},
		{"it fits", 14, 60 * time.Second, true, 14, false},
		{"it fits exactly", 14, 40 * time.Second, true, 14, false},
		{"cut short to the pairs that fit", 14, 35 * time.Second, true, 12, true},
		{"one pair fits", 14, 20 * time.Second, true, 12, true},
		{"not one pair", 14, 19 * time.Second, true, 0, false},
		{"the budget is spent", 14, -time.Second, true, 0, false},
	} {
		// After 10 blocks of 10 s each.
		next, cut := nextLook(c.scheduled, 10, c.left, 10*time.Second, c.budget, 2)
		if next != c.next || cut != c.cut {
			t.Errorf("%s: next look after %d blocks (cut %v), want %d (%v)", c.name, next, cut, c.next, c.cut)
		}
	}
	// Server processes of 8 blocks: after 24 blocks of 10 s each, a cut
	// look comes after the whole processes that fit, or none.
	for _, c := range []struct {
		left time.Duration
		next int
		cut  bool
	}{
		{160 * time.Second, 32, false},
		{79 * time.Second, 0, false},
		{80 * time.Second, 32, false},
	} {
		if next, cut := nextLook(32, 24, c.left, 10*time.Second, true, 8); next != c.next || cut != c.cut {
			t.Errorf("%s left after 3 processes of 8 blocks: next look after %d blocks (cut %v), want %d (%v)", c.left, next, cut, c.next, c.cut)
		}
	}
	if next, cut := nextLook(48, 24, 170*time.Second, 10*time.Second, true, 8); next != 40 || !cut {
		t.Errorf("170 s left, next look scheduled at 48: %d (cut %v), want a last look after 40", next, cut)
	}
}

// TestScheduleInProcesses: a routine that restarts its servers every k
// blocks looks after whole processes (in pairs of blocks: two processes
// at a time when k is odd), the first after MinProcesses of them at least, and grows by at least a process; one of a single
// look makes the runs asked, restarts or not.
func TestScheduleInProcesses(t *testing.T) {
	for _, c := range []struct {
		runs, looks, every int
		want               []int
		unit               int
	}{
		{6, 14, 0, []int{6, 8, 10, 14, 18, 24, 30, 38, 48, 60, 76, 96, 120, 150}, 2},
		{6, 6, 8, []int{24, 32, 40, 56, 72, 96}, 8},
		{40, 3, 8, []int{40, 56, 72}, 8},
		{6, 4, 3, []int{12, 18, 24, 30}, 6},
		{30, 3, 5, []int{30, 40, 50}, 10},
		{6, 1, 8, []int{6}, 2},
	} {
		got, unit := Schedule(c.runs, c.looks, c.every)
		if !slices.Equal(got, c.want) || unit != c.unit {
			t.Errorf("Schedule(%d, %d, %d) = %v in units of %d, want %v in units of %d", c.runs, c.looks, c.every, got, unit, c.want, c.unit)
		}
	}
}
