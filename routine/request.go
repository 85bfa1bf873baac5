package routine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/catalog"
	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/pipeline"
	"github.com/tsbench/tsbench/provision"
	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/report"
	"github.com/tsbench/tsbench/runner"
)

// Request is a whole routine as bench routine takes it: the configuration,
// the sides, the runs and the gate. Do makes it.
type Request struct {
	Config         string   // the config.properties of every side
	Sets, SideSets []string // --set KEY=VALUE, --side-set NAME:KEY=VALUE
	Baseline       string   // NAME=SERVER
	Contenders     []string // NAME=SERVER each
	Runs           int      // runs a side (rounded up to even); with looks, the runs of the first look (Schedule: with RestartEvery at least MinProcesses processes)
	// Budget and Looks make the routine sequential: after Runs runs a side
	// and at the runs of Schedule from there it compares what it has (each
	// look at the levels compare.Options.AtLook spends) and stops when every
	// gated row is decided, at the last of Looks looks, or when the budget
	// ends (0: no limit): if the next look would not fit in it, a last look
	// after the blocks that do spends the levels left. Looks 0 is
	// DefaultLooks with a budget, else 1 (one look: the routine as it was).
	Budget        time.Duration
	Looks         int
	Seed          uint64  // --order-seed
	SeedGiven     bool    // false: the seed is drawn from the clock
	Out           string  // the routine's folder ("": routine-<UTC time>)
	FailAbove     float64 // the gate's limit, percent
	Compare       compare.Options
	AA, KeepState bool
	KeepRunning   bool   // every side's server up through the routine (Options.KeepRunning)
	Cold          string // how a run's cold round is made cold: ColdRestart ("" too) or ColdClear
	// Duet makes each block's runs at once (Options.Duet); it implies
	// KeepRunning and ColdClear.
	Duet bool
	// DuetAuto makes the routine a duet where one fits: every side a server
	// the routine starts, one that can be kept running (IS_DELETE_DATA) and
	// can clear its caches. Where none fits the routine says why and
	// restarts each run's server instead. bench routine's default, unless
	// --duet, --keep-running or --cold chose.
	DuetAuto bool
	// WarmupRuns is the runs a side made before the first block and not
	// compared (Options.WarmupRuns); -1: 1 with KeepRunning, else 0.
	WarmupRuns int
	// RestartEvery restarts the kept-running servers every so many blocks
	// (Options.RestartEvery); 0 never.
	RestartEvery int
	DryRun       bool
	// Resume continues the routine in Out from its last complete run
	// (State, Done), refused where its inputs changed.
	Resume             bool
	Build              Build  // how a git side is built
	Properties         string // extra IoTDB server settings
	Registry           adapters.Registry
	Bench              string // the bench binary: the servers' lifecycle commands call it
	Tool               string // the tsbench build's version, in the records and the report
	Stdout, Log        io.Writer
	unchecked          string                      // why the runs' answers are not checked, when they are not
	change             []string                    // the keys the sides' --side-set made differ (ConfigChange), without --aa
	noRounds           map[string]bool             // the sides whose runs make no query rounds (Resolved.NoRounds)
	secret             map[string]bool             // the configuration's secret keys, never saved
	secure             map[string]provision.Server // the sides whose server the routine starts secured: its User and Password
	resumed            *State                      // the state of the routine resumed
	from               int                         // the runs made before this invocation (Resume)
	processes          int                         // the server processes a side measured before it
	oneServer          bool                        // a side's runs all met one server process (kept running, never restarted)
	unread             []string                    // what the sides' builds differ in that their server script does not read (Unread)
	look               int                         // the look the routine stopped at (0: not sequential)
	schedule           []int                       // the runs a side at each look (Schedule)
	unit               int                         // every look comes after a whole number of these blocks (LookUnit)
	cut                bool                        // the look is a last one the budget cut short: it spends the levels left
	stopped            string                      // why it stopped there
	base               []string
	perSide            map[string][]string
	labels             []string
	provisioning, runs time.Duration
}

// Do makes the routine: it refuses what it cannot run before any side is
// built (a *pipeline.BadInput), makes every side's server ready, runs the
// sides in balanced blocks and writes the report, whose verdict it
// returns (nil for a dry run). Any other error is a side that could not
// be made or a run that failed (its record saved).
func (r Request) Do(ctx context.Context) (*compare.Verdict, error) {
	if r.Config == "" {
		return nil, bad(errors.New("give a config file with -c, e.g. bench routine -c weekly.properties --baseline master=iotdb:2.0.10 --contender pr=DIR"))
	}
	if r.Baseline == "" || len(r.Contenders) == 0 {
		return nil, bad(errors.New("give --baseline NAME=SERVER and at least one --contender NAME=SERVER"))
	}
	runs, note, err := EvenRuns(r.Runs)
	if err != nil {
		return nil, bad(err)
	}
	if note != "" {
		fmt.Fprintf(r.Log, "note: %s\n", note)
	}
	r.Runs = runs
	if err := r.Compare.Check(r.FailAbove, true, compare.UntestedFail); err != nil {
		return nil, bad(err)
	}
	if r.Budget < 0 || r.Looks < 0 {
		return nil, bad(fmt.Errorf("--budget %s --looks %d: a duration and a number of looks, 0 or more", r.Budget, r.Looks))
	}
	if r.Looks == 0 {
		r.Looks = map[bool]int{false: 1, true: DefaultLooks}[r.Budget > 0]
	}
	r.schedule, r.unit = Schedule(r.Runs, r.Looks, r.RestartEvery)
	r.Runs = r.schedule[0]
	r.Looks = len(r.schedule)
	sides, err := ParseSides(r.Baseline, r.Contenders)
	if err != nil {
		return nil, bad(err)
	}
	asked := r.askedDesign()
	if r.DuetAuto {
		if why := duetUnfit(sides); why != "" {
			r.DuetAuto = false
			r.noDuet(why)
		} else {
			r.Duet = true
		}
	}
	if err := r.design(); err != nil {
		return nil, err
	}
	if r.perSide, err = SideSets(r.SideSets, sides); err != nil {
		return nil, bad(err)
	}
	if !r.SeedGiven {
		r.Seed = uint64(time.Now().UnixNano())
	}
	if r.Out == "" && r.Resume {
		return nil, bad(errors.New("--resume: give the --out of the routine to resume"))
	}
	if r.Out == "" {
		r.Out = "routine-" + time.Now().UTC().Format("20060102T150405Z")
	}
	if r.Out, err = filepath.Abs(r.Out); err != nil {
		return nil, bad(err)
	}
	if r.Resume {
		if r.DryRun {
			return nil, bad(errors.New("--resume continues a routine's runs, and --dry-run runs none: give one of them"))
		}
		if r.resumed, err = ReadState(r.Out); err != nil {
			return nil, bad(err)
		}
		if !r.SeedGiven {
			r.Seed = r.resumed.Seed
		}
	} else if err := CheckOut(r.Out); err != nil {
		return nil, bad(err)
	}
	port, commands, err := r.checkDesign(sides, asked)
	if err != nil {
		return nil, err
	}
	resolved, err := r.resolve(ctx, sides, commands)
	if err != nil {
		return nil, err
	}
	// Sides of one build that differ in their keys compare configurations.
	if err := CheckBuilds(resolved, r.AA || len(r.change) > 0); err != nil {
		return nil, bad(err)
	}
	r.unread = Unread(resolved)
	for _, w := range r.unread {
		fmt.Fprintln(r.Log, w)
	}
	// An external side's commands start its server around each run, kept
	// running or not; an embedded one has none. A resumed routine's earlier
	// runs met other processes (report).
	r.oneServer = r.KeepRunning && r.RestartEvery == 0 && !slices.ContainsFunc(sides, func(s Side) bool { return s.Form == Embedded || s.Form == External })
	if r.Cold == ColdClear {
		fmt.Fprintf(r.Log, "routine: c%s\n", strings.TrimPrefix(ClearColdWords, "C"))
		if !r.Duet {
			fmt.Fprintln(r.Log, OneProcessWords)
		}
	}
	if r.Duet {
		fmt.Fprintf(r.Log, "routine: d%s\n", strings.TrimPrefix(DuetWords, "D"))
	}
	if r.DryRun {
		fmt.Fprintf(r.Stdout, "Routine: %d runs a side in balanced blocks (--order-seed %d), into %s\n", r.Runs, r.Seed, r.Out)
		if r.Duet {
			fmt.Fprintln(r.Stdout, DuetWords)
		}
		if r.Looks > 1 {
			fmt.Fprintf(r.Stdout, "Sequential: looks after %s runs a side%s, at most %d looks%s; the runs up to the last:\n", r.scheduleWords(), r.processWords(), r.Looks, r.budgetWords())
		}
		o := Options{Sides: resolved, KeepRunning: r.KeepRunning, WarmupRuns: r.WarmupRuns, RestartEvery: r.RestartEvery}
		for _, p := range o.plan(Order(len(resolved), r.mostRuns(), r.Seed)) {
			if p.restart {
				fmt.Fprintf(r.Stdout, "  restart every side's server (--restart-every %d)\n", r.RestartEvery)
			}
			if p.warmup > 0 {
				fmt.Fprintf(r.Stdout, "  warm-up run %d: side %s (not compared)\n", p.warmup, resolved[p.Side].Name)
				continue
			}
			fmt.Fprintf(r.Stdout, "  run %d: side %s (block %d, position %d)\n", p.i+1, resolved[p.Side].Name, p.Block, p.Position)
		}
		return nil, nil
	}
	state, err := r.state(resolved)
	if err != nil {
		return nil, bad(err)
	}
	if r.resumed != nil {
		if changed := r.resumed.Changed(state); len(changed) > 0 {
			return nil, bad(fmt.Errorf("--resume: the routine in %s cannot go on as it began: %s (a resumed routine must make the same runs)", r.Out, strings.Join(changed, "; ")))
		}
		if err := r.resumeFrom(resolved); err != nil {
			return nil, err
		}
	}
	// Only now, with every side ready: a refusal leaves nothing behind.
	if err := os.MkdirAll(filepath.Join(r.Out, "runs"), 0o755); err != nil {
		return nil, bad(fmt.Errorf("--out: %w", err))
	}
	if r.resumed == nil {
		if err := state.Write(r.Out); err != nil {
			return nil, fmt.Errorf("write %s: %w", StateFile(r.Out), err)
		}
	}
	tm, err := r.run(ctx, sides, resolved, port)
	if err != nil {
		return nil, err
	}
	return r.report(tm)
}

// check loads the configuration once for every side before anything is
// made or started (a bad key fails here, not after a build) and refuses
// what each side's runs would refuse at their start. It returns the port
// of a server side and each side's lifecycle commands.
func (r *Request) check(sides []Side) (port int, commands map[string]map[string]string, err error) {
	base := append(slices.Clone(r.Sets), "RESULTS_DIR="+Results(r.Out))
	p, _, err := r.load(base, true)
	if err != nil {
		return 0, nil, err
	}
	p0 := p.Loaded.Config
	a := AnswersByDefault(p, base)
	switch {
	case a.Chosen:
	case a.Unchecked != "":
		fmt.Fprintf(r.Log, "routine: answers NOT checked: %s\n", a.Unchecked)
	default:
		fmt.Fprintf(r.Log, "routine: answers checked (CHECK_ANSWERS=true, the routine's default; the summary says what it cost)\n")
	}
	r.base, r.unchecked = a.Sets, a.Unchecked
	commands = map[string]map[string]string{}
	var configs []*config.Config
	r.noRounds, r.secret, r.secure = map[string]bool{}, map[string]bool{}, map[string]provision.Server{}
	for _, s := range sides {
		p, own, err := r.load(append(slices.Clone(r.base), r.perSide[s.Name]...), s.Form != Embedded)
		if err != nil {
			return 0, nil, err
		}
		if own != nil {
			r.noRounds[s.Name] = true
		}
		for _, k := range p.Loaded.Config.Keys() {
			if k.Secret || config.IsSecretName(k.Name) {
				r.secret[k.Name] = true
			}
		}
		if err := p.ForRoutine(); err != nil {
			return 0, nil, err
		}
		if err := p.Check(); err != nil {
			return 0, nil, err
		}
		if _, tooBig := runner.SizeCheck(p.Driver, p.Plan); tooBig != nil {
			return 0, nil, bad(tooBig)
		}
		if err := s.Fits(p.Driver.Name, p.Driver.Servers, p.Driver.Embedded()); err != nil {
			return 0, nil, bad(err)
		}
		c := p.Loaded.Config
		if s.Form != External && s.Form != Embedded && strings.EqualFold(c.Value("USE_SSL"), "true") {
			if c.NotEmpty("ES_API_KEY") {
				return 0, nil, bad(&config.Error{Key: "ES_API_KEY", Value: config.Mask, Msg: "side " + s.Name + "'s server is started by the routine, which makes a user on it but no API key", Valid: "USERNAME and PASSWORD, or an external side"})
			}
			sec := provision.Server{Kind: s.Kind, Version: s.Version, Secure: true, User: c.Username, Password: c.Password}
			if s.Form != Release {
				sec.Kind, sec.Version = provision.Elasticsearch, "" // known after the build: checked again then
			}
			if err := sec.Check(); err != nil {
				return 0, nil, bad(fmt.Errorf("side %s: %w", s.Name, err))
			}
			if sec.User != provision.Superuser {
				// The indices the runs write: a track names its own.
				key, value, indices := "DB_NAME", c.DBName, []string{c.DBName}
				if p.Plan.Track != nil {
					key, value, indices = "TRACK_PATH", c.TrackPath, p.Plan.Track.IndexNames()
				}
				for _, ix := range indices {
					if !strings.HasPrefix(strings.ToLower(ix), provision.UserIndices) {
						return 0, nil, bad(&config.Error{Key: key, Value: value, Msg: "side " + s.Name + "'s secured node gives USERNAME=" + sec.User + " the indices " + provision.UserIndices + "* only, and the runs write " + strings.ToLower(ix), Valid: "indices starting with " + provision.UserIndices + ", or USERNAME=" + provision.Superuser})
					}
				}
			}
			r.secure[s.Name] = sec
		}
		if r.KeepRunning && s.Form != External && s.Form != Embedded && !c.DeleteData {
			return 0, nil, bad(&config.Error{Key: "IS_DELETE_DATA", Value: "false", Msg: "with --keep-running the servers keep their data from run to run, and this would let every run's data pile up", Valid: "true, or no --keep-running"})
		}
		if r.Duet && (s.Form == External || p.Driver.Discard != nil) {
			what := "an external side's commands start and stop its server around each run"
			if s.Form != External {
				what = p.Driver.Name + "'s runs of every side would use one file at once"
			}
			return 0, nil, bad(fmt.Errorf("--duet makes the sides' runs at the same time, and %s; run this routine without --duet", what))
		}
		if r.Cold == ColdClear && !p.Driver.Embedded() {
			if !p.Driver.Can.ClearCache {
				return 0, nil, bad(fmt.Errorf("--cold clear: %s cannot clear its own caches, which is what makes a cold round cold without a restart; use --cold restart", p.Driver.Name))
			}
			if !c.ClearCache {
				return 0, nil, bad(&config.Error{Key: "CLEAR_CACHE", Value: "false", Msg: "with --cold clear the server's own cache clear is what makes a cold round cold without a restart", Valid: "true, or --cold restart"})
			}
		}
		if len(p0.Ports) > 0 && port == 0 && s.Form != External && s.Form != Embedded {
			// Where the servers the routine starts listen: not an
			// external side's port, which its own commands decide, nor a
			// side's own --side-set PORT, which is a relay or proxy in
			// front of its server (runOne).
			port = p0.Ports[0]
		}
		commands[s.Name] = map[string]string{"START_COMMAND": c.StartCommand, "STOP_COMMAND": c.StopCommand}
		if own != nil {
			commands[s.Name] = own
		}
		configs = append(configs, c)
	}
	if len(r.noRounds) > 0 {
		fmt.Fprintf(r.Log, "routine: %s\n", NoRoundsWords)
	}
	if change := ConfigChange(configs); len(change) > 0 {
		if r.AA {
			return 0, nil, bad(fmt.Errorf("--aa declares the sides one build in one configuration, but their --side-set keys make them differ in %s: without --aa the routine compares the configurations and says so (valid: --aa with the same values on every side, or no --aa)", strings.Join(change, ", ")))
		}
		r.change = change
		fmt.Fprintf(r.Log, "routine: the sides differ in %s (--side-set): a comparison of configurations, which these keys' change makes one even on one server build\n", strings.Join(change, ", "))
	}
	return port, commands, nil
}

// load loads the configuration with sets as a side's runs will have it.
// A run without query rounds (a track's ingest, QUERY_ROUNDS=0) has no
// lifecycle to restart its server in: where the routine starts and stops
// the server (serves), the configuration's STOP_COMMAND and START_COMMAND
// are returned as the routine's (own) and the run gets them empty.
func (r *Request) load(sets []string, serves bool) (p *pipeline.Prepared, own map[string]string, err error) {
	if l, err := config.Load(config.Source{Path: r.Config, Sets: sets, Catalog: r.Registry}); err == nil && !l.Config.Rounds() && serves {
		own = map[string]string{"START_COMMAND": l.Config.StartCommand, "STOP_COMMAND": l.Config.StopCommand}
		sets = append(slices.Clone(sets), noRestart()...)
	}
	p, err = pipeline.Load(r.Config, sets, r.Registry)
	return p, own, err
}

// resolve makes every side's server ready and says which server each is.
func (r *Request) resolve(ctx context.Context, sides []Side, commands map[string]map[string]string) ([]Resolved, error) {
	t0 := time.Now()
	res := Resolver{Cache: provision.DefaultCache(), Bench: r.Bench, Build: r.Build, Log: r.Log}
	var resolved []Resolved
	for _, s := range sides {
		rs, err := res.Resolve(ctx, s)
		if err != nil {
			if errors.Is(err, ErrBuild) {
				return nil, err
			}
			return nil, bad(err)
		}
		rs.Commands, rs.NoRounds = commands[s.Name], r.noRounds[s.Name]
		if sec, ok := r.secure[s.Name]; ok && rs.Server != nil {
			rs.Server.Secure, rs.Server.User, rs.Server.Password = true, sec.User, sec.Password
			if err := rs.Server.Check(); err != nil {
				return nil, bad(fmt.Errorf("side %s: %w", s.Name, err))
			}
		}
		resolved = append(resolved, rs)
		r.labels = append(r.labels, s.Name)
		id := "no server (embedded)"
		switch {
		case rs.Record != nil:
			id = record.Target{DB: string(rs.Kind), Server: rs.Record}.Identity()
		case s.Form == External:
			id = "external: the config's START_COMMAND and STOP_COMMAND"
		}
		fmt.Fprintf(r.Log, "routine: %s: %s\n", s.Name, strings.TrimPrefix(id, " "))
	}
	r.provisioning = time.Since(t0)
	return resolved, nil
}

// askedDesign is the design flags as given, before design fills in what a duet
// implies: what a routine falls back to when no duet fits.
type askedDesign struct {
	keepRunning bool
	cold        string
	compare     compare.Options
	warmupRuns  int
}

func (r *Request) askedDesign() askedDesign {
	return askedDesign{r.KeepRunning, r.Cold, r.Compare, r.WarmupRuns}
}

// design fills in what the design flags imply and refuses what they
// cannot do together.
func (r *Request) design() error {
	if r.Duet {
		if r.Cold == ColdRestart {
			return bad(&config.Error{Key: "--cold", Value: r.Cold, Msg: "a duet's runs share the machine at every step, and a restart of one side's server would fall on the other side's measured phase", Valid: ColdClear + " (the default with --duet)"})
		}
		// Each block's runs met the same machine at the same time: the
		// test pairs them.
		r.Cold, r.KeepRunning, r.Compare.Paired = ColdClear, true, true
	}
	if r.Cold == "" {
		r.Cold = ColdRestart
	}
	if r.RestartEvery < 0 || r.RestartEvery > 0 && !r.KeepRunning {
		return bad(&config.Error{Key: "--restart-every", Value: fmt.Sprint(r.RestartEvery), Msg: "restarts the servers a routine keeps running, and without --keep-running or --duet each run restarts its own", Valid: "0, or a number of blocks with --keep-running or --duet"})
	}
	if r.WarmupRuns < -1 {
		return bad(&config.Error{Key: "--warmup-runs", Value: fmt.Sprint(r.WarmupRuns), Msg: "is not a number of runs", Valid: "0 or more; -1: 1 with --keep-running, else 0"})
	}
	if r.WarmupRuns == -1 {
		r.WarmupRuns = map[bool]int{false: 0, true: 1}[r.KeepRunning]
	}
	if r.Cold != ColdRestart && r.Cold != ColdClear {
		return bad(&config.Error{Key: "--cold", Value: r.Cold, Msg: "is not a way to make a run's cold round cold", Valid: ColdRestart + " (stop the server, drop the OS caches, start it) or " + ColdClear + " (flush, drop the OS caches, clear the server's own caches, no restart)"})
	}
	return nil
}

// duetUnfit says why a duet does not fit sides ("" when it may): its
// servers must be ones the routine starts and keeps running.
func duetUnfit(sides []Side) string {
	for _, s := range sides {
		switch s.Form {
		case External:
			return "side " + s.Name + " is external: its own commands start and stop its server around each run"
		case Embedded:
			return "side " + s.Name + " is embedded: it has no server to keep running beside the others"
		}
	}
	return ""
}

// noDuet says why the routine's default duet does not fit: the fallback
// is said, never silent.
func (r *Request) noDuet(why string) {
	fmt.Fprintf(r.Log, "routine: no duet (the default where one fits): %s; the sides' runs take turns instead, each on a server started for it (or a file of its own)\n", why)
}

// checkDesign is check for the design chosen; when the routine's default
// duet does not fit the sides' configurations (IS_DELETE_DATA=false, a
// server that cannot clear its caches, a database file the sides would
// share), it says why and checks the design asked (restarts around every
// run) instead.
func (r *Request) checkDesign(sides []Side, a askedDesign) (int, map[string]map[string]string, error) {
	if !r.DuetAuto {
		return r.check(sides)
	}
	log := r.Log
	var held bytes.Buffer
	r.Log = &held
	port, commands, err := r.check(sides)
	r.Log = log
	var bi *pipeline.BadInput
	if err == nil || !errors.As(err, &bi) {
		held.WriteTo(log)
		return port, commands, err
	}
	r.Duet, r.DuetAuto = false, false
	r.KeepRunning, r.Cold, r.Compare, r.WarmupRuns = a.keepRunning, a.cold, a.compare, a.warmupRuns
	if err := r.design(); err != nil {
		return 0, nil, err
	}
	port, commands, err2 := r.check(sides)
	if err2 == nil {
		why := strings.TrimSuffix(bi.Err.Error(), "; run this routine without --duet")
		r.noDuet(why)
	}
	return port, commands, err2
}

// run makes every run of the routine, each with its log in runs/.
func (r *Request) run(ctx context.Context, sides []Side, resolved []Resolved, port int) (Timing, error) {
	results := Results(r.Out)
	n := r.from
	var numbering sync.Mutex // a duet's runs begin at once
	start := time.Now()
	o := Options{
		Sides: resolved, Runs: r.mostRuns(), Seed: r.Seed, AA: r.AA, Change: r.change, KeepState: r.KeepState, KeepRunning: r.KeepRunning, ClearCold: r.Cold == ColdClear, Duet: r.Duet,
		From: r.from, Processes: r.processes, WarmupRuns: r.WarmupRuns, RestartEvery: r.RestartEvery, StateDir: filepath.Join(r.Out, "servers"), Port: port, Properties: r.Properties, Log: r.Log,
		RunOne: func(ctx context.Context, j Job) error {
			var logPath, prefix string
			if j.Warmup > 0 {
				// Its record apart, where no comparison of the routine looks.
				j.Sets = append(slices.Clone(j.Sets), "RESULTS_DIR="+filepath.Join(r.Out, "warmup"))
				logPath = filepath.Join(r.Out, "runs", fmt.Sprintf("warmup-%d-%s.log", j.Warmup, j.Label))
				prefix = fmt.Sprintf("routine: %s, warm-up run %d: ", j.Label, j.Warmup)
			} else {
				numbering.Lock()
				n++
				logPath = filepath.Join(r.Out, "runs", fmt.Sprintf("%02d-%s.log", n, j.Label))
				of := fmt.Sprint(r.mostRuns() * len(resolved))
				if r.Looks > 1 {
					of = "at most " + of
				}
				prefix = fmt.Sprintf("routine: %s, run %d of %s: ", j.Label, n, of)
				numbering.Unlock()
			}
			if err := r.runOne(ctx, j, logPath, prefix); err != nil {
				return fmt.Errorf("%w (its log: %s)", err, logPath)
			}
			return nil
		},
		AfterFirstBlock: func() error {
			recs, _ := record.Store{Dir: results}.List()
			return SameBuildsSeen(recs, sides, r.AA || len(r.change) > 0)
		},
	}
	if r.WarmupRuns > 0 {
		why := ""
		if r.KeepRunning {
			why = ": with --keep-running a server's first run finds it fresh, unlike the runs after it"
		}
		fmt.Fprintf(r.Log, "routine: %d warm-up run(s) a side first, kept in %s and not compared (--warmup-runs)%s\n", r.WarmupRuns, filepath.Join(r.Out, "warmup"), why)
	}
	if r.Looks > 1 {
		o.FirstLook = r.schedule[r.look]
		o.Look = func(blocks int, warm time.Duration) (int, error) { return r.lookAt(blocks, time.Since(start), warm) }
		fmt.Fprintf(r.Log, "routine: looks after %s runs a side%s until every gated row is decided (at most %d looks%s), the order drawn with --order-seed %d\n", r.scheduleWords(), r.processWords(), r.Looks, r.budgetWords(), r.Seed)
	} else {
		fmt.Fprintf(r.Log, "routine: %d runs a side, the order drawn with --order-seed %d\n", r.Runs, r.Seed)
	}
	tm, err := Run(ctx, o)
	if err != nil {
		var bi *pipeline.BadInput
		if errors.Is(err, ErrSameBuild) || errors.As(err, &bi) {
			return tm, bad(err)
		}
		return tm, fmt.Errorf("the routine stopped: %w", err)
	}
	return tm, nil
}

// state is what the routine writes before its first run and what
// --resume compares with it.
func (r *Request) state(resolved []Resolved) (*State, error) {
	sum, err := fileSHA256(r.Config)
	if err != nil {
		return nil, fmt.Errorf("-c %s: %w", r.Config, err)
	}
	secret := func(k string) bool { return r.secret[k] || config.IsSecretName(k) }
	in := []string{"--baseline=" + r.Baseline}
	for _, c := range r.Contenders {
		in = append(in, "--contender="+c)
	}
	for _, s := range maskSets(r.Sets, secret) {
		in = append(in, "--set="+s)
	}
	for _, s := range maskSets(r.SideSets, secret) {
		in = append(in, "--side-set="+s)
	}
	in = append(in, fmt.Sprintf("--runs=%d", r.Runs), fmt.Sprintf("--looks=%d", r.Looks), "--budget="+r.Budget.String(), "--cold="+r.Cold,
		fmt.Sprintf("--duet=%t", r.Duet), fmt.Sprintf("--keep-running=%t", r.KeepRunning), fmt.Sprintf("--warmup-runs=%d", r.WarmupRuns), fmt.Sprintf("--restart-every=%d", r.RestartEvery),
		fmt.Sprintf("--keep-state=%t", r.KeepState), fmt.Sprintf("--aa=%t", r.AA), "--iotdb-properties="+r.Properties,
		"--build="+r.Build.Command, "--dist-glob="+r.Build.Glob)
	st := &State{Tool: r.Tool, Config: r.Config, ConfigSHA256: sum, Inputs: in, Seed: r.Seed}
	for _, rs := range resolved {
		id := rs.Spec
		if rs.Record != nil {
			id = record.Target{DB: string(rs.Kind), Server: rs.Record}.Identity()
		}
		st.Sides = append(st.Sides, rs.Name+": "+strings.TrimSpace(id))
	}
	return st, nil
}

// resumeFrom finds the runs the resumed routine made (Done) and moves the
// records and logs of any later run (the one interrupted, half a duet's
// block) into OUT/interrupted, where no comparison looks, so that the
// routine goes on from its last complete run.
func (r *Request) resumeFrom(resolved []Resolved) error {
	recs, damaged := record.Store{Dir: Results(r.Out)}.List()
	if len(damaged) > 0 {
		return bad(fmt.Errorf("--resume: %s holds files that are not run records: %v", Results(r.Out), errors.Join(damaged...)))
	}
	names := make([]string, len(resolved))
	for i, rs := range resolved {
		names[i] = rs.Name
	}
	group := 1
	if r.Duet {
		group = len(resolved)
	}
	slots := Order(len(resolved), r.mostRuns(), r.Seed)
	done, left := Done(slots, names, recs, group)
	if done == len(slots) {
		return bad(fmt.Errorf("--resume: every run of the routine in %s is made; bench compare compares them", r.Out))
	}
	moved := filepath.Join(r.Out, "interrupted")
	for _, rec := range left {
		if err := os.MkdirAll(moved, 0o755); err != nil {
			return err
		}
		if err := os.Rename(filepath.Join(Results(r.Out), rec.ID+".json"), filepath.Join(moved, rec.ID+".json")); err != nil {
			return fmt.Errorf("--resume: set aside run %s: %w", rec.ID, err)
		}
	}
	logs, _ := filepath.Glob(filepath.Join(r.Out, "runs", "[0-9]*-*.log"))
	for _, l := range logs {
		var n int
		if _, err := fmt.Sscanf(filepath.Base(l), "%d-", &n); err == nil && n > done {
			if err := os.MkdirAll(moved, 0o755); err != nil {
				return err
			}
			if err := os.Rename(l, filepath.Join(moved, filepath.Base(l))); err != nil {
				return fmt.Errorf("--resume: set aside %s: %w", l, err)
			}
		}
	}
	// The looks made before were spent: the next look is the one after.
	if r.Looks > 1 {
		r.look = LooksMade(r.schedule, done/len(resolved))
	}
	r.from = done
	for _, rec := range recs {
		if rec.Routine != nil && rec.Routine.Process > r.processes {
			r.processes = rec.Routine.Process
		}
	}
	fmt.Fprintf(r.Log, "routine: resuming %s with --order-seed %d: runs 1 to %d of %d were made and complete; %d run(s) after them set aside in %s\n", r.Out, r.Seed, done, len(slots), len(left), moved)
	return nil
}

// mostRuns is the most runs a side the routine makes: those of its last
// look.
func (r *Request) mostRuns() int { return r.schedule[len(r.schedule)-1] }

// scheduleWords are the runs a side at the looks, "6, 8, 10, 14, … 96"
// when there are many.
func (r *Request) scheduleWords() string {
	var w []string
	for i, n := range r.schedule {
		if len(r.schedule) > 6 && i == 4 {
			w = append(w, "…")
		}
		if len(r.schedule) <= 6 || i < 4 || i == len(r.schedule)-1 {
			w = append(w, strconv.Itoa(n))
		}
	}
	return strings.Join(w, ", ")
}

func (r *Request) budgetWords() string {
	if r.Budget <= 0 {
		return ""
	}
	return ", within --budget " + r.Budget.String()
}

// lookAt is the look after blocks blocks, elapsed into the runs (warm of
// it the warm-up runs'): it compares the runs at the look's levels and
// returns the blocks after which to look next, 0 to stop.
func (r *Request) lookAt(blocks int, elapsed, warm time.Duration) (int, error) {
	r.look++
	block := (elapsed - warm) / time.Duration(blocks) // the blocks so far, on average
	left := r.Budget - elapsed
	// A look after which not one more unit of blocks (LookUnit) fits in the budget is
	// the last whatever it finds: it spends the levels of the looks not
	// made, as a look the budget cut short does. Time alone decides it, not
	// the runs, so the levels still sum to α.
	end := r.Budget > 0 && r.look < r.Looks && blocksIn(left, block, r.unit) < r.unit
	if end {
		r.cut = true
	}
	cmp, _, err := r.comparison()
	if err != nil {
		return 0, fmt.Errorf("compare the routine's runs at look %d: %w", r.look, err)
	}
	v := cmp.Decide(r.FailAbove, compare.UntestedFail)
	fmt.Fprintf(r.Log, "routine: look %d of at most %d, %d runs a side: %s\n", r.look, r.Looks, blocks, v.Headline)
	switch {
	case v.Status == compare.Regression:
		r.stopped = "a regression is shown"
	case v.Status == compare.Passed:
		r.stopped = "every gated row is proven within the limit"
	case end:
		r.stopped = fmt.Sprintf("another %s (about %s) would not fit in --budget %s: this look spent the levels left", r.unitWords(), (time.Duration(r.unit) * block).Round(time.Second), r.Budget)
	case r.cut:
		r.stopped = "it was the last look that fit in --budget " + r.Budget.String()
	case r.look == r.Looks:
		r.stopped = "it was the last look"
		if fit := blocksIn(left, block, r.unit); r.Budget > 0 && fit >= r.unit {
			// The routine stopped with time to spare: say how far more
			// looks would have gone, which the user may choose next time.
			more := 0
			for s := LookRuns(r.schedule[0], r.Looks+more+1, r.unit); len(s) > r.Looks+more && s[len(s)-1] <= blocks+fit; s = LookRuns(r.schedule[0], r.Looks+more+1, r.unit) {
				more++
			}
			r.stopped += fmt.Sprintf(", with %s of --budget %s left: about %d more runs a side would have fit", left.Round(time.Second), r.Budget, fit)
			if more > 0 {
				r.stopped += fmt.Sprintf(" (--looks %d)", r.Looks+more)
			}
		}
	default:
		// Not one unit (LookUnit) fitting ended the routine above (end), so
		// the next look is the schedule's or a last one after the units that fit.
		next, cut := nextLook(r.schedule[r.look], blocks, left, block, r.Budget > 0, r.unit)
		if cut {
			r.cut = true
			fmt.Fprintf(r.Log, "routine: the next look (%d runs a side) would not fit in --budget %s: a last look after %d runs a side, with the levels left\n", r.schedule[r.look], r.Budget, next)
		}
		return next, nil
	}
	return 0, nil
}

// processWords says why a routine that restarts its servers looks where
// it does ("" for one that does not).
func (r *Request) processWords() string {
	if r.unit <= 2 {
		return ""
	}
	return fmt.Sprintf(" (after whole server processes of %d blocks, the first after %d: a process is a sample of the tests)", r.unit, MinProcesses)
}

// unitWords names the blocks a look comes after a whole number of.
func (r *Request) unitWords() string {
	if r.unit > 2 {
		return fmt.Sprintf("server process a side (%d blocks)", r.unit)
	}
	return "pair of blocks"
}

// nextLook is where a sequential routine looks next after blocks blocks,
// with left of its budget (if it has one) at block a block: at scheduled,
// the next look of its schedule, if it fits; else, cut, after the whole
// units of blocks (LookUnit) that do fit, a last look at the levels the
// looks not made leave; 0 when not even one unit fits.
func nextLook(scheduled, blocks int, left, block time.Duration, budget bool, unit int) (next int, cut bool) {
	if !budget || block*time.Duration(scheduled-blocks) <= left {
		return scheduled, false
	}
	if fit := blocksIn(left, block, unit); fit >= unit {
		return blocks + fit, true
	}
	return 0, false
}

// blocksIn is the blocks, in whole units (LookUnit), that fit in left at
// block each.
func blocksIn(left, block time.Duration, unit int) int {
	if left <= 0 || block <= 0 {
		return 0
	}
	return int(left/block) / unit * unit
}

// runOne is one run of a side, as bench run makes it: its output goes to
// its log, its progress lines to the routine's log with prefix.
func (r *Request) runOne(ctx context.Context, j Job, logPath, prefix string) error {
	logf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logf.Close()
	// A side's own keys come last: a --side-set PORT (a proxy in front of
	// its server) wins over the port the routine started it on.
	p, err := pipeline.Load(r.Config, slices.Concat(r.base, j.Sets, r.perSide[j.Label]), r.Registry)
	if err != nil {
		return err
	}
	o := pipeline.Options{Label: j.Label, Tool: r.Tool, Annotate: j.Annotate, Fresh: j.Fresh, Env: j.Env, Together: j.Together.wait(),
		Human: logf, Log: logf, Progress: &prefixWriter{w: r.Log, prefix: prefix}, Announce: true,
		Report: func(rec *record.Record) error { return report.WriteRun(logf, report.Text, rec) }}
	_, err = p.Run(ctx, o)
	return err
}

// report compares the routine's runs (package compare), writes every
// artefact (Report.Write), prints the summary and returns the gate's
// verdict. Every artefact starts with the same verdict.
func (r *Request) report(tm Timing) (*compare.Verdict, error) {
	cmp, warnings, err := r.comparison()
	if err != nil {
		return nil, fmt.Errorf("compare the routine's runs: %w", err)
	}
	v := cmp.Decide(r.FailAbove, compare.UntestedFail)
	sum, err := Report{Out: r.Out, Labels: r.labels, Runs: len(cmp.Baseline.Runs), Paired: r.Compare.Paired, Tool: r.Tool, Comparison: cmp, Warnings: slices.Concat(r.unread, warnings),
		Provisioning: r.provisioning, Timing: tm, Unchecked: r.unchecked, ClearCold: r.Cold == ColdClear, Duet: r.Duet, Resumed: r.from, RestartEvery: r.RestartEvery, OneServer: r.oneServer && r.from == 0}.Write()
	if err != nil {
		return nil, err
	}
	if _, err := r.Stdout.Write(sum); err != nil {
		return nil, err
	}
	return v, nil
}

// comparison compares the runs of the routine's results folder, the
// baseline's first.
func (r *Request) comparison() (*compare.Comparison, []string, error) {
	c, err := catalog.Open(Results(r.Out))
	if err != nil {
		return nil, nil, err
	}
	runs, damaged, _, err := c.Sides(r.labels)
	if err != nil {
		return nil, nil, bad(err)
	}
	opt := r.Compare
	switch {
	case r.cut:
		opt = opt.AtLastLook(r.look, r.Looks)
	case r.look > 0:
		opt = opt.AtLook(r.look, r.Looks)
	}
	cmp, warnings, err := compare.Build(r.labels, runs, damaged, opt, false)
	if err != nil {
		return nil, nil, bad(err)
	}
	if r.look > 0 {
		full := r.Compare.AtLook(1, 1) // the levels asked, defaults filled in
		beta := (1 - full.Confidence) / 2
		cmp.Sequential = fmt.Sprintf("Sequential: the routine stopped at look %d of at most %d (%d runs a side) because %s. "+
			"The looks came after %s runs a side, each at levels spent from α=%.3g and the intervals' one-sided %.3g (O'Brien–Fleming-type spending, level·(2k−1)/%d² at look k, "+
			"a last look the budget cut short the level left, level·(1−(k−1)²/%d²); the looks combined by Bonferroni's inequality): wherever it stops, the chance of a false \"worse\" stays below %.3g and of a false \"within\" below %.3g. "+
			"This look: α=%.3g, intervals at %.4g%%.",
			r.look, r.Looks, len(runs[0]), r.stopped, r.scheduleWords(), full.Alpha, beta, r.Looks, r.Looks, full.Alpha, beta, opt.Alpha, 100*opt.Confidence)
	}
	return cmp, warnings, nil
}

func bad(err error) error { return &pipeline.BadInput{Err: err} }

// prefixWriter starts every line written through it with prefix.
type prefixWriter struct {
	w      io.Writer
	prefix string
	mid    bool
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	var out []byte
	for _, c := range b {
		if !p.mid {
			out = append(out, p.prefix...)
			p.mid = true
		}
		out = append(out, c)
		if c == '\n' {
			p.mid = false
		}
	}
	if _, err := p.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}
