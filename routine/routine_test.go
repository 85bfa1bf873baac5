package routine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tsbench/tsbench/internal/gittest"
	"github.com/tsbench/tsbench/record"
)

// TestOrderIsBalanced: every side runs once a block; each pair of blocks
// holds the sides' order and its reverse, so every side has the same mean
// position; the seed decides which comes first, the same seed the same way.
func TestOrderIsBalanced(t *testing.T) {
	for _, tc := range []struct{ sides, runs int }{{2, 2}, {2, 6}, {2, 10}, {3, 4}, {4, 6}} {
		slots := Order(tc.sides, tc.runs, 7)
		if len(slots) != tc.sides*tc.runs {
			t.Fatalf("%d sides × %d runs: %d slots", tc.sides, tc.runs, len(slots))
		}
		sum := make([]int, tc.sides)
		for b := 1; b <= tc.runs; b++ {
			seen := map[int]bool{}
			for _, s := range slots[(b-1)*tc.sides : b*tc.sides] {
				if s.Block != b || seen[s.Side] {
					t.Fatalf("%d sides × %d runs: block %d is %+v", tc.sides, tc.runs, b, slots[(b-1)*tc.sides:b*tc.sides])
				}
				seen[s.Side] = true
				sum[s.Side] += s.Position
			}
			if b%2 == 0 {
				for p := 0; p < tc.sides; p++ {
					if first, second := slots[(b-2)*tc.sides+p], slots[b*tc.sides-1-p]; first.Side != second.Side {
						t.Fatalf("%d sides: blocks %d and %d are not each other's reverse", tc.sides, b-1, b)
					}
				}
			}
		}
		for i := range sum {
			if sum[i] != sum[0] {
				t.Fatalf("%d sides × %d runs: position sums %v, want equal", tc.sides, tc.runs, sum)
			}
		}
	}
	order := func(seed uint64) string {
		s := ""
		for _, sl := range Order(2, 20, seed) {
			s += string(rune('A' + sl.Side))
		}
		return s
	}
	if order(1) != order(1) {
		t.Fatal("one seed, two orders")
	}
	// Not the fixed rhythm: across seeds and pairs both ways come first.
	seen := map[string]bool{}
	for seed := uint64(0); seed < 8; seed++ {
		o := order(seed)
		for i := 0; i < len(o); i += 4 {
			seen[o[i:i+4]] = true
		}
	}
	if !seen["ABBA"] || !seen["BAAB"] || len(seen) != 2 {
		t.Fatalf("pairs of blocks seen: %v, want ABBA and BAAB", seen)
	}
}

func TestParseSide(t *testing.T) {
	dir := t.TempDir()
	zip := filepath.Join(dir, "d.zip")
	if err := os.WriteFile(zip, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	txt := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(txt, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		arg  string
		want Side
		err  string
	}{
		{arg: "master=iotdb:2.0.10", want: Side{Name: "master", Spec: "iotdb:2.0.10", Form: Release, Kind: "iotdb", Version: "2.0.10"}},
		{arg: "m=opensearch", want: Side{Name: "m", Spec: "opensearch", Form: Release, Kind: "opensearch"}},
		{arg: "pr=git:../iotdb@pull/2689/head", want: Side{Name: "pr", Spec: "git:../iotdb@pull/2689/head", Form: Git, Path: "../iotdb", Ref: "pull/2689/head"}},
		{arg: "pr=" + dir, want: Side{Name: "pr", Spec: dir, Form: Dist, Path: dir}},
		{arg: "pr=" + zip, want: Side{Name: "pr", Spec: zip, Form: Archive, Path: zip}},
		{arg: "a=embedded", want: Side{Name: "a", Spec: "embedded", Form: Embedded}},
		{arg: "a=external", want: Side{Name: "a", Spec: "external", Form: External}},
		{arg: "master", err: "give NAME=SERVER"},
		{arg: "=iotdb", err: "give NAME=SERVER"},
		{arg: "a/b=iotdb", err: "path separator"},
		{arg: "pr=git:../iotdb", err: "git:PATH@REF"},
		{arg: "pr=/no/such/build", err: "no server spec and no file or folder"},
		{arg: "pr=" + txt, err: "not a .zip or .tar.gz"},
		{arg: "pr=mysql:8", err: "no server spec"},
	} {
		got, err := ParseSide("--contender", tc.arg)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want one with %q", tc.arg, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.arg, err)
		case tc.err == "" && got != tc.want:
			t.Errorf("%s: %+v, want %+v", tc.arg, got, tc.want)
		}
	}
}

// gitRepo makes a repository whose refs build fake IoTDB distributions:
// good (a distribution), same (good's files on another commit), broken
// (the build fails) and empty (the build makes nothing).
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := gittest.Init(t, "main")
	run := func(args ...string) { t.Helper(); gittest.Git(t, dir, args...) }
	write := func(name, body string) { t.Helper(); gittest.Write(t, dir, name, body) }
	write("build.sh", "set -e\nmkdir -p dist/lib dist/conf\necho jar > dist/lib/iotdb-server-2.0.10.jar\ncat setting > dist/conf/iotdb-system.properties\n")
	write("setting", "wal_mode=ASYNC\n")
	run("add", ".")
	run("commit", "-qm", "good")
	run("branch", "good")
	run("commit", "-q", "--allow-empty", "-m", "same files")
	run("branch", "same")
	write("setting", "wal_mode=SYNC\n")
	run("commit", "-qam", "slow")
	run("branch", "slow")
	write("build.sh", "echo compiling; echo 'error: it does not compile' >&2; exit 1\n")
	run("commit", "-qam", "broken")
	run("branch", "broken")
	write("build.sh", "echo built nothing\n")
	run("commit", "-qam", "empty")
	run("branch", "empty")
	return dir
}

// TestGitSides: a ref is built once per commit into its own worktree; a
// build that fails or makes no distribution is ErrBuild with the reason,
// never a fallback; identical files on two commits are refused unless the
// A/A is declared.
func TestGitSides(t *testing.T) {
	repo := gitRepo(t)
	r := Resolver{Cache: t.TempDir(), Build: Build{Command: "sh build.sh"}, Log: io.Discard}
	ctx := context.Background()
	side := func(ref string) Side {
		s, err := ParseSide("--contender", ref+"=git:"+repo+"@"+ref)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	good, err := r.Resolve(ctx, side("good"))
	if err != nil {
		t.Fatal(err)
	}
	if good.Kind != "iotdb" || good.Server == nil || good.Server.Dist == "" || good.Record.Commit == "" || len(good.Record.Checksum) != 64 {
		t.Fatalf("good: %+v %+v", good.Server, good.Record)
	}
	// Built once: a second resolve reuses the distribution even if the
	// worktree's build script would now fail.
	if err := os.WriteFile(filepath.Join(filepath.Dir(good.Server.Dist), "build.sh"), []byte("exit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	again, err := r.Resolve(ctx, side("good"))
	if err != nil || again.Server.Dist != good.Server.Dist || again.Record.Checksum != good.Record.Checksum {
		t.Fatalf("rebuilt or changed: %v %+v", err, again.Record)
	}
	same, err := r.Resolve(ctx, side("same"))
	if err != nil {
		t.Fatal(err)
	}
	slow, err := r.Resolve(ctx, side("slow"))
	if err != nil {
		t.Fatal(err)
	}
	if same.Record.Commit == good.Record.Commit || same.Record.Checksum != good.Record.Checksum || slow.Record.Checksum == good.Record.Checksum {
		t.Fatalf("checksums: good %s same %s slow %s", good.Record.Checksum, same.Record.Checksum, slow.Record.Checksum)
	}
	if err := CheckBuilds([]Resolved{good, slow}, false); err != nil {
		t.Fatalf("two builds refused: %v", err)
	}
	err = CheckBuilds([]Resolved{good, same}, false)
	if !errors.Is(err, ErrSameBuild) || !strings.Contains(err.Error(), "good and same") || !strings.Contains(err.Error(), "--aa") {
		t.Fatalf("identical builds: %v", err)
	}
	if err := CheckBuilds([]Resolved{good, same}, true); err != nil {
		t.Fatalf("declared A/A refused: %v", err)
	}
	for ref, want := range map[string]string{
		"broken": "the build command failed (exit status 1); its log: ",
		"empty":  "the build produced no distribution (looked for distribution/target/*-all-bin/*-all-bin",
	} {
		_, err := r.Resolve(ctx, side(ref))
		if !errors.Is(err, ErrBuild) || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), ref+" (git:") {
			t.Errorf("%s: %v, want ErrBuild with %q", ref, err, want)
		}
		if ref == "broken" && !strings.Contains(err.Error(), "error: it does not compile") {
			t.Errorf("broken: the log's last line is not in %q", err)
		}
	}
	if _, err := r.Resolve(ctx, side("nosuchref")); !errors.Is(err, ErrBuild) || !strings.Contains(err.Error(), `has no commit "nosuchref"`) {
		t.Errorf("missing ref: %v", err)
	}
	noBuild := r
	noBuild.Build.Command = ""
	if _, err := noBuild.Resolve(ctx, side("good")); err == nil || errors.Is(err, ErrBuild) || !strings.Contains(err.Error(), "needs --build") {
		t.Errorf("no build command: %v", err)
	}
	wrongGlob := r
	wrongGlob.Build.Glob = "out/*"
	if _, err := wrongGlob.Resolve(ctx, side("slow")); !errors.Is(err, ErrBuild) || !strings.Contains(err.Error(), "looked for out/*") {
		t.Errorf("a glob that finds nothing: %v", err)
	}
}

// TestRunMarksRecords: each job's record gets its side, block and position
// and the server the side resolved to; a failing run stops the routine.
func TestRunMarksRecords(t *testing.T) {
	sides := []Resolved{{Side: Side{Name: "a", Form: Embedded}}, {Side: Side{Name: "b", Form: Embedded}, Record: &record.Server{Spec: "x", Checksum: "c"}}}
	var got []string
	o := Options{Sides: sides, Runs: 2, Log: io.Discard, RunOne: func(_ context.Context, j Job) error {
		r := &record.Record{}
		j.Annotate(r)
		if !j.Fresh || j.Label != j.Side.Name {
			t.Errorf("job %+v", j)
		}
		s := r.Routine.Side + string(rune('0'+r.Routine.Block)) + string(rune('0'+r.Routine.Position))
		if (r.Target.Server != nil) != (j.Side.Name == "b") {
			t.Errorf("%s: server %+v", s, r.Target.Server)
		}
		got = append(got, s)
		return nil
	}}
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, sl := range Order(2, 2, 0) {
		want = append(want, sides[sl.Side].Name+string(rune('0'+sl.Block))+string(rune('0'+sl.Position)))
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("runs %v, want %v", got, want)
	}
	n := 0
	o.RunOne = func(context.Context, Job) error {
		n++
		if n == 2 {
			return errors.New("server died")
		}
		return nil
	}
	if _, err := Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), "run 2 of 4 (block 1): server died") || n != 2 {
		t.Fatalf("after a failed run: %v, %d runs", err, n)
	}
}

// TestRunWarmsUpFirst: warm-up runs come before block 1, one a side in the
// sides' order, marked as such; the builds' check and the looks count only
// the measured blocks, and a failed warm-up run is named as one.
func TestRunWarmsUpFirst(t *testing.T) {
	sides := []Resolved{{Side: Side{Name: "a", Form: Embedded}}, {Side: Side{Name: "b", Form: Embedded}}}
	var got []string
	checked, looks := 0, []int{}
	o := Options{Sides: sides, Runs: 2, WarmupRuns: 2, Log: io.Discard, FirstLook: 2,
		RunOne: func(_ context.Context, j Job) error {
			r := &record.Record{}
			j.Annotate(r)
			if r.Routine.Warmup != (j.Warmup > 0) || (j.Warmup > 0) != (r.Routine.Block == 0) {
				t.Errorf("job %+v, record %+v", j, r.Routine)
			}
			got = append(got, fmt.Sprintf("%s%d%d", r.Routine.Side, r.Routine.Block, j.Warmup))
			return nil
		},
		AfterFirstBlock: func() error { checked = len(got); return nil },
		Look:            func(blocks int, _ time.Duration) (int, error) { looks = append(looks, blocks); return blocks + 2, nil },
	}
	tm, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if want := "a01 b01 a02 b02"; strings.Join(got[:4], " ") != want || len(got) != 8 {
		t.Fatalf("runs %v, want %s first and 4 measured", got, want)
	}
	for _, g := range got[4:] {
		if g[2] != '0' || g[1] == '0' {
			t.Errorf("measured run %s", g)
		}
	}
	if checked != 6 || !slices.Equal(looks, []int{2}) {
		t.Errorf("builds checked after %d runs (want 6), looks %v (want [2])", checked, looks)
	}
	if tm.Warmup <= 0 || tm.Runs <= 0 {
		t.Errorf("timing %+v", tm)
	}
	o.RunOne = func(_ context.Context, j Job) error {
		if j.Warmup == 2 {
			return errors.New("server died")
		}
		return nil
	}
	if _, err := Run(context.Background(), o); err == nil || err.Error() != "side a, warm-up run 2: server died" {
		t.Fatalf("a failed warm-up: %v", err)
	}
}

// TestRunDuetWarmupCountsOnce: a duet's warm-up runs, made at once, count
// once in the warm-up time the looks are given (the budget's estimate of a
// block subtracts it); summed over the sides it was twice their wall time.
func TestRunDuetWarmupCountsOnce(t *testing.T) {
	sides := []Resolved{{Side: Side{Name: "a", Form: Embedded}}, {Side: Side{Name: "b", Form: Embedded}}}
	const nap = 200 * time.Millisecond
	var warm time.Duration
	o := Options{Sides: sides, Runs: 2, WarmupRuns: 1, Duet: true, Log: io.Discard, FirstLook: 2,
		RunOne: func(_ context.Context, j Job) error {
			if j.Warmup > 0 {
				time.Sleep(nap)
			}
			return nil
		},
		Look: func(_ int, w time.Duration) (int, error) { warm = w; return 0, nil },
	}
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if warm < nap || warm >= 2*nap-10*time.Millisecond {
		t.Errorf("the looks were given %s of warm-up for two %s runs made at once", warm, nap)
	}
}

// TestRunDuet: with Duet each block's runs are made at once, one a side,
// each with its place in the block's duet; a failed run stops the routine
// after its block, named.
func TestRunDuet(t *testing.T) {
	sides := []Resolved{{Side: Side{Name: "a", Form: Embedded}}, {Side: Side{Name: "b", Form: Embedded}}}
	var mu sync.Mutex
	inside, most := 0, 0
	blocks := map[int][]string{}
	o := Options{Sides: sides, Runs: 4, Duet: true, Log: io.Discard, RunOne: func(ctx context.Context, j Job) error {
		r := &record.Record{}
		j.Annotate(r)
		mu.Lock()
		inside++
		most = max(most, inside)
		blocks[r.Routine.Block] = append(blocks[r.Routine.Block], r.Routine.Side)
		mu.Unlock()
		if j.Together == nil {
			return errors.New("a duet's run without its duet")
		}
		// Both runs of the block must come here before either goes on.
		if err := j.Together.Wait(ctx, "ingest"); err != nil {
			return err
		}
		mu.Lock()
		inside--
		mu.Unlock()
		return nil
	}}
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if most != 2 || len(blocks) != 4 {
		t.Fatalf("at most %d runs at once (want 2), blocks %v", most, blocks)
	}
	for b, s := range blocks {
		slices.Sort(s)
		if !slices.Equal(s, []string{"a", "b"}) {
			t.Errorf("block %d: %v", b, s)
		}
	}
	o.RunOne = func(_ context.Context, j Job) error {
		if j.Side.Name == "b" {
			return errors.New("server died")
		}
		return nil
	}
	if _, err := Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), "side b, run ") || !strings.Contains(err.Error(), "(block 1): server died") {
		t.Fatalf("a failed duet run: %v", err)
	}
}

// TestPlanRestarts: with --restart-every the kept-running servers restart
// before every Nth block after the first, each time followed by the
// warm-up runs again; never right after a resume's start, never without
// kept-running servers.
func TestPlanRestarts(t *testing.T) {
	sides := []Resolved{{Side: Side{Name: "a"}}, {Side: Side{Name: "b"}}}
	slots := Order(2, 6, 1)
	show := func(ps []planned) string {
		var out []string
		for _, p := range ps {
			w := ""
			if p.restart {
				w = "R "
			}
			if p.warmup > 0 {
				w += fmt.Sprintf("w%d", p.warmup)
			} else {
				w += fmt.Sprintf("b%d", p.Block)
			}
			out = append(out, w)
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		name string
		o    Options
		want string
	}{
		{"warm-ups again", Options{Sides: sides, KeepRunning: true, WarmupRuns: 1, RestartEvery: 2},
			"w1 w1 b1 b1 b2 b2 R w2 w2 b3 b3 b4 b4 R w3 w3 b5 b5 b6 b6"},
		{"no warm-ups", Options{Sides: sides, KeepRunning: true, RestartEvery: 4},
			"b1 b1 b2 b2 b3 b3 b4 b4 R b5 b5 b6 b6"},
		{"resumed at block 3", Options{Sides: sides, KeepRunning: true, WarmupRuns: 1, RestartEvery: 2, From: 4},
			"w1 w1 b3 b3 b4 b4 R w2 w2 b5 b5 b6 b6"},
		{"servers not kept running", Options{Sides: sides, RestartEvery: 2},
			"b1 b1 b2 b2 b3 b3 b4 b4 b5 b5 b6 b6"},
	} {
		if got := show(c.o.plan(slots)); got != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
	for _, p := range (Options{Sides: sides, KeepRunning: true, WarmupRuns: 1, RestartEvery: 2}).plan(slots) {
		if p.warmup == 0 && slots[p.i] != p.Slot {
			t.Fatalf("measured run %d is not the order's: %+v", p.i, p)
		}
	}
}

// TestWipeAfter: a run whose side runs again from a wipe ends with the
// wipe (no shutdown's flush of data about to be deleted); a side's last
// run, the runs of a block a look follows (it may end the routine) and
// every run with --keep-state end with a stop, their state and logs kept.
func TestWipeAfter(t *testing.T) {
	sides := []Resolved{{Side: Side{Name: "a"}}, {Side: Side{Name: "b"}}}
	slots := Order(2, 3, 1)
	look := func(int, time.Duration) (int, error) { return 0, nil }
	for _, c := range []struct {
		name string
		o    Options
		next int // the block the next look follows (0: none)
		want string
	}{
		{"turns, no look", Options{Sides: sides}, 0, "W W W W S S"},
		{"a look after block 2", Options{Sides: sides, Look: look}, 2, "W W S S S S"},
		{"--keep-state", Options{Sides: sides, KeepState: true}, 0, "S S S S S S"},
	} {
		all := c.o.plan(slots)
		last := lastRuns(all)
		var got []string
		for k := range all {
			got = append(got, map[bool]string{true: "W", false: "S"}[c.o.wipeAfter(all, last, k, c.next)])
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s: %s, want %s (W: wiped after the run, S: stopped)", c.name, g, c.want)
		}
	}
}
