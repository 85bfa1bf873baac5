package runner

import (
	"fmt"
	"strings"
	"time"
)

// StepKind is what one step of a plan does.
type StepKind int

// The kinds of steps, in the order a plan may hold them.
const (
	StepCleanup   StepKind = iota // remove the benchmark's old data (IS_DELETE_DATA)
	StepSchema                    // create the schema (CREATE_SCHEMA)
	StepMixed                     // iot-benchmark's one phase: LOOP operations in OPERATION_PROPORTION's mix
	StepIngest                    // the writes alone, before query rounds
	StepLifecycle                 // flush, stop, drop caches, start, reconnect, clear cache: makes the next round cold
	StepQuery                     // one round of one query variant
	StepVerify                    // count what every device holds (VERIFY)
)

// PlanStep is one step of a run, decided before anything connects: the
// run is the walk over Plan.Steps, and --dry-run prints exactly them.
type PlanStep struct {
	Kind  StepKind
	Round int // lifecycle and query steps
	// Variant is the query variant of a query step, and of a lifecycle
	// step that runs before each variant (RESTART_SCOPE=variant).
	Variant *PlannedVariant
	// Skip says why the step does nothing, when it does nothing.
	Skip string
	// Wait is the pause after a cleanup (INIT_WAIT_TIME), for a server
	// that keeps the dropped data a while.
	Wait time.Duration
}

// String describes the step in one line, as --dry-run prints it.
func (s PlanStep) String() string {
	var b strings.Builder
	switch s.Kind {
	case StepCleanup:
		b.WriteString("cleanup")
		if s.Wait > 0 && s.Skip == "" {
			fmt.Fprintf(&b, ", then wait %s (INIT_WAIT_TIME)", s.Wait)
		}
	case StepSchema:
		b.WriteString("create schema")
	case StepMixed:
		b.WriteString("main phase (writes and queries mixed)")
	case StepIngest:
		b.WriteString("ingest")
	case StepLifecycle:
		fmt.Fprintf(&b, "lifecycle before round %d", s.Round)
		if s.Variant != nil {
			fmt.Fprintf(&b, " of %s", s.Variant.Name)
		}
	case StepQuery:
		fmt.Fprintf(&b, "query %s (%s) round %d", s.Variant.Name, s.Variant.Family.ID(), s.Round)
	case StepVerify:
		b.WriteString("verify")
	default:
		fmt.Fprintf(&b, "StepKind(%d)", int(s.Kind))
	}
	if s.Skip != "" {
		fmt.Fprintf(&b, " (skipped: %s)", s.Skip)
	}
	return b.String()
}

// planSteps lays out the run from QUERY_ROUNDS, RESTART_SCOPE, the variants
// (QUERY_SUITE or the families with weight), IS_DELETE_DATA, CREATE_SCHEMA
// and VERIFY. Round 1 follows the lifecycle (cold); later rounds follow
// round 1 directly (warm).
func (p *Plan) planSteps() []PlanStep {
	c := p.Config
	var steps []PlanStep
	add := func(s PlanStep) { steps = append(steps, s) }
	cleanup := PlanStep{Kind: StepCleanup, Wait: time.Duration(c.InitWaitMS) * time.Millisecond}
	switch {
	case !c.DeleteData:
		cleanup.Skip = "IS_DELETE_DATA=false"
	case c.Distributed():
		// Cleanup removes the benchmark's data, every instance's: one
		// instance would delete what the others just created.
		cleanup.Skip = fmt.Sprintf("one of %d instances (BENCHMARK_INSTANCES): instances would delete each other's data; clean once before them with bench clean", c.BenchmarkInstances)
	}
	add(cleanup)
	schema := PlanStep{Kind: StepSchema}
	if !c.CreateSchema {
		schema.Skip = "CREATE_SCHEMA=false"
	}
	add(schema)
	switch {
	case !c.Rounds():
		add(PlanStep{Kind: StepMixed})
	case c.RestartScope == "variant":
		if p.Counts[Write] > 0 {
			add(PlanStep{Kind: StepIngest})
		}
		for i := range p.Variants {
			v := &p.Variants[i]
			add(PlanStep{Kind: StepLifecycle, Round: 1, Variant: v})
			for r := 1; r <= c.QueryRounds; r++ {
				add(PlanStep{Kind: StepQuery, Round: r, Variant: v})
			}
		}
	default:
		if p.Counts[Write] > 0 {
			add(PlanStep{Kind: StepIngest})
		}
		add(PlanStep{Kind: StepLifecycle, Round: 1})
		for r := 1; r <= c.QueryRounds; r++ {
			for i := range p.Variants {
				add(PlanStep{Kind: StepQuery, Round: r, Variant: &p.Variants[i]})
			}
		}
	}
	if c.Verify {
		add(PlanStep{Kind: StepVerify})
	}
	return steps
}
