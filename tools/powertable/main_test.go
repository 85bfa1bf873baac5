package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServedRatio(t *testing.T) {
	held := "delayrelay: held 408563 responses, 500.008µs each on average (asked; 0.100 of the server's 5.000088ms), took 500.009µs (0.100 of it), waiting on 134276 of them\n"
	base := "delayrelay: held 408563 responses, 0s each on average (asked; 0.000 of the server's 5.159825ms), took 0s (0.000 of it), waiting on 0 of them\n"
	old := "delayrelay: held 35512 responses, 3.1ms each on average (asked)\n"
	for _, c := range []struct {
		name             string
		contender, basel string
		want             float64
		ok               bool
	}{
		{"both relays said it", held, base, 5.000088 / 5.159825, true},
		{"a relay that did not say it", held, old, 0, false},
		{"no baseline relay", held, "", 0, false},
		{"a zero baseline", held, "(asked; 0.000 of the server's 0s)", 0, false},
	} {
		got, ok := servedRatio([]byte(c.contender), []byte(c.basel))
		if ok != c.ok || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: servedRatio = %v, %v; want %v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

// TestSettingIsACellOfItsOwn: a routine of a real setting change (its
// folder holds "setting") is not counted with the A/As of the same share 0,
// and its row names the setting.
func TestSettingIsACellOfItsOwn(t *testing.T) {
	lines := tableOf(t, map[string]map[string]string{
		"duet-0-1": {"exit": "0\n"},
		"duet-0-2": {"exit": "0\n"},
		"duet-0-3": {"exit": "1\n", "setting": "max_tsblock_line_number=100\n"},
	})
	if len(lines) != 4 {
		t.Fatalf("want a header, a rule and two cells, got:\n%s", strings.Join(lines, "\n"))
	}
	if !strings.HasPrefix(lines[2], "| duet | 0 (A/A) | 2 | 0 (0–84%) | 2 (16–100%) |") {
		t.Errorf("the A/A cell: %s", lines[2])
	}
	if !strings.HasPrefix(lines[3], "| duet | setting max_tsblock_line_number=100 | 1 | 1 (2–100%) | 0 (0–98%) |") {
		t.Errorf("the setting's cell: %s", lines[3])
	}
}

// TestNoRelayIsACellOfItsOwn: A/As whose clients went straight to their
// servers (power-curve's NORELAY, a file "norelay") are not counted with
// the relayed A/As of the same design, and their row says so.
func TestNoRelayIsACellOfItsOwn(t *testing.T) {
	lines := tableOf(t, map[string]map[string]string{
		"defaultrestart-0-1": {"exit": "0\n", "relay": "delayrelay: held 1 responses\n"},
		"defaultrestart-0-2": {"exit": "4\n", "norelay": "no relay\n"},
		"defaultrestart-0-3": {"exit": "0\n", "norelay": "no relay\n"},
	})
	if len(lines) != 4 {
		t.Fatalf("want a header, a rule and two cells, got:\n%s", strings.Join(lines, "\n"))
	}
	if !strings.HasPrefix(lines[2], "| defaultrestart | 0 (A/A) | 1 |") {
		t.Errorf("the relayed cell: %s", lines[2])
	}
	if !strings.HasPrefix(lines[3], "| defaultrestart, no relay | 0 (A/A) | 2 | 0 (0–84%) | 1 (1–99%) | 1 (1–99%) |") || !strings.HasSuffix(lines[3], "| no relay | no relay |") {
		t.Errorf("the cell without relays: %s", lines[3])
	}
}

// tableOf is powertable's lines for routine folders holding files (a
// folder's name, then each file's name and text).
func tableOf(t *testing.T, folders map[string]map[string]string) []string {
	t.Helper()
	out := t.TempDir()
	for dir, files := range folders {
		if err := os.MkdirAll(filepath.Join(out, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(out, dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var b strings.Builder
	if err := table(out, &b); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(b.String()), "\n")
}

// A routine cut off before its summary leaves an exit code and nothing to
// take a wall time from: the cell says so instead of "NaN min".
func TestNoSummaryIsNotRecorded(t *testing.T) {
	out := t.TempDir()
	dir := filepath.Join(out, "duet-0-1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "exit"), []byte("4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := table(out, &b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "NaN") {
		t.Errorf("a cell without summaries prints NaN:\n%s", b.String())
	}
	if !strings.Contains(b.String(), "| not recorded | not recorded |") {
		t.Errorf("want wall time and runs \"not recorded\":\n%s", b.String())
	}
}

// TestEveryDesignIsACell: every design tools/power-curve runs names
// folders this table reads (a design missing here made an empty table).
func TestEveryDesignIsACell(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("..", "power-curve"))
	if err != nil {
		t.Fatal(err)
	}
	_, list, ok := strings.Cut(string(script), "no design $design (valid: ")
	list, _, ok2 := strings.Cut(list, ")")
	if !ok || !ok2 {
		t.Fatal("tools/power-curve no longer lists its designs as this test reads them")
	}
	designs := strings.Fields(list)
	if len(designs) < 10 {
		t.Fatalf("designs read from tools/power-curve: %v", designs)
	}
	for _, d := range designs {
		if _, known := order[d]; !known || !cellName.MatchString(d+"-0.10-3") {
			t.Errorf("design %s of tools/power-curve: not read by the table", d)
		}
	}
}

// TestLifecycleShares: the servers' steps and the warm-up runs are read
// from each summary's wall time line as shares of it, and their medians
// printed; a summary without warm-up runs counts 0 for them.
func TestLifecycleShares(t *testing.T) {
	wall := func(servers, warmups string) string {
		s := "Gate passed\nWall time 20m0s: making the servers ready 0s, starting/stopping/wiping them around the runs " + servers + ", the runs 14m0s (measured phases 14m0s)"
		if warmups != "" {
			s += ", the warm-up runs " + warmups + " (not compared)"
		}
		return s + "\n"
	}
	lines := tableOf(t, map[string]map[string]string{
		"default-0-1": {"exit": "0\n", "summary.txt": wall("2m0s", "4m0s")},
		"default-0-2": {"exit": "0\n", "summary.txt": wall("4m0s", "")},
		"default-0-3": {"exit": "0\n", "summary.txt": wall("3m0s", "2m0s")},
	})
	if len(lines) != 3 {
		t.Fatalf("want a header, a rule and one cell, got:\n%s", strings.Join(lines, "\n"))
	}
	if !strings.Contains(lines[2], "| 20.0 min | not recorded | 0.15 / 0.10 |") {
		t.Errorf("want the servers' steps at a median 0.15 of the wall time and the warm-ups at 0.10: %s", lines[2])
	}
}
