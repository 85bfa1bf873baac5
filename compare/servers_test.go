package compare

import (
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
