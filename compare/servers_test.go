package compare

import (
	"slices"
	"strings"
	"testing"

	"github.com/tsbench/tsbench/record"
)

// TestServersAndSameBuild: every side's server is named; two sides of one
// known build are said to be the same, loudly; an unknown build (SQLite,
// old records) never is.
func TestServersAndSameBuild(t *testing.T) {
	order := []string{"Q1"}
	set := func(s Side, tg record.Target) Side {
		for _, r := range s.Runs {
			r.Target = tg
		}
		return s
	}
	iotdb := record.Target{DB: "IoTDB", Version: "IoTDB 2.0.10", Build: "3c26382"}
	master := set(side("master", 1, 3, map[string]float64{"Q1": 5}, order), iotdb)
	pr := set(side("pr", 2, 3, map[string]float64{"Q1": 5}, order), iotdb)
	c := New(master, []Side{pr}, opts)
	want := []string{"Baseline master measured IoTDB 2.0.10 (build 3c26382).", "Contender pr measured IoTDB 2.0.10 (build 3c26382)."}
	if got := c.Servers(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("servers %q, want %q", got, want)
	}
	same := c.SameBuild()
	if len(same) != 1 || !strings.Contains(same[0], "SAME SERVER BUILD: master and pr") || !strings.Contains(same[0], "compares the build with itself") {
		t.Fatalf("same build %q", same)
	}
	if lead := c.Lead(); len(lead) != 3 || lead[2] != same[0] {
		t.Fatalf("lead %q", lead)
	}
	// Declared on purpose.
	for _, s := range []Side{master, pr} {
		for _, r := range s.Runs {
			r.Routine = &record.Routine{Side: s.Label, AA: true}
		}
	}
	if same := New(master, []Side{pr}, opts).SameBuild(); len(same) != 1 || !strings.Contains(same[0], "as declared (--aa)") {
		t.Fatalf("declared A/A %q", same)
	}
	// Another build of the same version is not the same.
	other := iotdb
	other.Build = "9f0e1d2"
	if same := New(master, []Side{set(pr, other)}, opts).SameBuild(); len(same) != 0 {
		t.Fatalf("two builds called the same: %q", same)
	}
	// One run of a side with another build: the side has no one build.
	pr.Runs[0].Target = iotdb
	if same := New(master, []Side{pr}, opts).SameBuild(); len(same) != 0 {
		t.Fatalf("a mixed side called the same: %q", same)
	}
	// The embedded database: same version, unknown build, never "same".
	a := set(side("a", 3, 3, map[string]float64{"Q1": 5}, order), record.Target{DB: "SQLite", Version: "SQLite 3.50.4"})
	b := set(side("b", 4, 3, map[string]float64{"Q1": 5}, order), record.Target{DB: "SQLite", Version: "SQLite 3.50.4"})
	if same := New(a, []Side{b}, opts).SameBuild(); len(same) != 0 {
		t.Fatalf("SQLite called the same build: %q", same)
	}
	// Provisioned files decide where the server reports nothing.
	files := record.Target{DB: "IoTDB", Version: "IoTDB 2.0.10", Server: &record.Server{Spec: "git:repo@a", Checksum: "abc"}}
	if got := IdenticalBuilds([]string{"x", "y"}, []record.Target{files, files}); len(got) != 1 || got[0] != "x and y (files abc)" {
		t.Fatalf("identical builds %q", got)
	}
	files2 := files
	files2.Server = &record.Server{Spec: "git:repo@b", Checksum: "abd"}
	if got := IdenticalBuilds([]string{"x", "y"}, []record.Target{files, files2}); len(got) != 0 {
		t.Fatalf("different files called identical: %q", got)
	}
}

// TestConfigurationChange: a routine's sides of one build that differ in
// keys they declare (record.Routine.Change) are a comparison of
// configurations: the lead names the keys and their values, and Admit
// takes their runs although their workloads differ in exactly those keys,
// and no other.
func TestConfigurationChange(t *testing.T) {
	order := []string{"Q1"}
	iotdb := record.Target{DB: "IoTDB", Version: "IoTDB 2.0.10", Build: "3c26382"}
	master := side("master", 1, 3, map[string]float64{"Q1": 5}, order)
	pr := side("pr", 2, 3, map[string]float64{"Q1": 5}, order)
	mark := func(s Side, batch string, change ...string) {
		for _, r := range s.Runs {
			r.Target = iotdb
			r.Routine = &record.Routine{Side: s.Label, Change: change}
			r.Config = map[string]string{"BATCH_SIZE_PER_WRITE": batch, "LOOP": "10"}
			r.WorkloadKeys = []string{"BATCH_SIZE_PER_WRITE", "LOOP"}
			r.Fingerprint = "fp-" + batch
		}
	}
	mark(master, "100", "BATCH_SIZE_PER_WRITE")
	mark(pr, "50", "BATCH_SIZE_PER_WRITE")
	c := New(master, []Side{pr}, opts)
	if same := c.SameBuild(); len(same) != 1 || !strings.Contains(same[0], "a comparison of configurations") {
		t.Fatalf("same build %q", same)
	}
	want := `CONFIGURATION CHANGE: master → pr: BATCH_SIZE_PER_WRITE "100" → "50" (--side-set); the ratios measure this change.`
	if got := c.Changes(); len(got) != 1 || got[0] != want {
		t.Fatalf("changes %q, want %q", got, want)
	}
	if !slices.Contains(c.Lead(), want) {
		t.Fatalf("lead without the change: %q", c.Lead())
	}
	if _, err := Admit([]Side{master, pr}, false); err != nil {
		t.Fatalf("runs that differ in the declared key refused: %v", err)
	}
	// A key not declared differs too: refused, naming it.
	pr.Runs[1].Config["LOOP"] = "20"
	pr.Runs[1].Fingerprint = "fp-other"
	if _, err := Admit([]Side{master, pr}, false); err == nil || !strings.Contains(err.Error(), `LOOP: "10" vs "20"`) {
		t.Fatalf("an undeclared key admitted: %v", err)
	}
	// Undeclared (no routine, or another routine's keys): refused.
	pr.Runs[1].Config["LOOP"] = "10"
	for _, r := range pr.Runs {
		r.Routine.Change = []string{"LOOP"}
	}
	if _, err := Admit([]Side{master, pr}, false); err == nil || !strings.Contains(err.Error(), "BATCH_SIZE_PER_WRITE") {
		t.Fatalf("a change one side does not declare admitted: %v", err)
	}
	if got := New(master, []Side{pr}, opts).Changes(); len(got) != 0 {
		t.Fatalf("sides that declare different keys: %q", got)
	}
}
