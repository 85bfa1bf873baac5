package runner

import (
	"fmt"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
)

// checkAnswerKeys refuses CHECK_ANSWERS where the model of the workload
// cannot say what a query should return: the check would then fail good
// answers or, worse, be skipped without a word.
func (p *Plan) checkAnswerKeys() error {
	if !p.Config.CheckAnswers {
		return nil
	}
	if err := AnswersApply(p, nil, false); err != nil {
		return err
	}
	// A query-only run: its queries read what an earlier run wrote, which
	// the caller finds and holds to this run's data fingerprint.
	p.EarlierData = p.Counts[Write] == 0
	return nil
}

// AnswersApply says whether CHECK_ANSWERS can check the answers of this
// plan's runs on drv (nil: not chosen yet), as a run alone makes them or,
// with routine, as bench routine does (it wipes each side's server before
// every run): nil when it can, else why not, as the refusal of the key. It
// is the one place this is decided: the plan's validation, the pipeline's
// load and the routine's default ask it.
func AnswersApply(p *Plan, drv *adapters.Driver, routine bool) *config.Error {
	c := p.Config
	refuse := func(msg, valid string) *config.Error {
		return &config.Error{Key: "CHECK_ANSWERS", Value: "true", Msg: msg, Valid: valid}
	}
	switch {
	case c.CheckAnswersRatio <= 0:
		return &config.Error{Key: "CHECK_ANSWERS_RATIO", Value: fmt.Sprint(c.CheckAnswersRatio), Msg: "checks no query while CHECK_ANSWERS=true", Valid: "0 < ratio ≤ 1, or CHECK_ANSWERS=false"}
	case drv != nil && !drv.Can.Answer:
		return refuse(fmt.Sprintf("%s returns no answers to check (it stores nothing)", drv.Name), "false")
	case !c.Rounds() && !c.HasQueries() && c.QuerySuite == "":
		return refuse("has no query to check: the run only writes (no query rounds, no query weights)", "false, or query rounds after the ingest")
	case !c.Rounds() && p.Counts[Write] > 0:
		return refuse("needs query rounds after the ingest (QUERY_ROUNDS ≥ 1): in the mixed phase (QUERY_ROUNDS=0) queries run while the data is being written, so their answers depend on what happened to be stored", "false, or QUERY_ROUNDS ≥ 1")
	case p.Counts[Write] == 0 && routine:
		return refuse("of a run that writes nothing checks the data an earlier run wrote, and the routine wipes each side's server before every run", "false, or a workload that writes its data")
	case p.Counts[Write] == 0:
		return nil // a query-only run: the data an earlier run wrote
	case !c.DeleteData:
		return refuse("cannot check data that IS_DELETE_DATA=false keeps from earlier runs, which the model of this workload does not describe", "false, or IS_DELETE_DATA=true")
	case c.Distributed():
		return refuse(fmt.Sprintf("cannot check one of %d instances (BENCHMARK_INSTANCES): each queries devices the others write on their own schedule", c.BenchmarkInstances), "false")
	}
	return nil
}

// checkMeasured refuses a run with nothing to measure: LOOP=0 writes
// nothing and runs no mixed phase, and without query rounds the run was a
// "complete" record of empty tables.
func (p *Plan) checkMeasured() error {
	c := p.Config
	if c.Loop > 0 || c.Rounds() {
		return nil
	}
	return &config.Error{Key: "LOOP", Value: "0", Msg: "with QUERY_ROUNDS=0 measures nothing: the run writes nothing and has no query rounds", Valid: "LOOP ≥ 1, or QUERY_ROUNDS ≥ 1 to query data an earlier run wrote"}
}

// checkWarmup refuses a warm-up that applies to nothing or leaves nothing
// to measure.
func (p *Plan) checkWarmup() error {
	c := p.Config
	if c.WarmupTimeS == 0 && c.WarmupOperations == 0 {
		return nil
	}
	key, value := "WARMUP_TIME", fmt.Sprint(c.WarmupTimeS)
	if c.WarmupOperations > 0 {
		key, value = "WARMUP_OPERATIONS", fmt.Sprint(c.WarmupOperations)
	}
	if c.WarmupTimeS > 0 && c.WarmupOperations > 0 {
		return &config.Error{Key: "WARMUP_TIME", Value: value, Msg: fmt.Sprintf("and WARMUP_OPERATIONS=%d both end the warm-up", c.WarmupOperations), Valid: "one of them (as Rally's warmup-time-period and warmup-iterations)"}
	}
	if c.Rounds() && p.Counts[Write] == 0 && c.QueryRounds == 1 {
		return &config.Error{Key: key, Value: value, Msg: "applies to the ingest and to the query rounds after the first, and this run has neither (round 1 follows the restart and is measured from its first query)", Valid: "0, or QUERY_ROUNDS ≥ 2, or an ingest"}
	}
	if c.WarmupTimeS > 0 && c.TestMaxTimeMS > 0 && c.WarmupTimeS*1000 >= c.TestMaxTimeMS {
		return &config.Error{Key: key, Value: value, Msg: fmt.Sprintf("seconds cover the whole of every phase, which TEST_MAX_TIME=%d ms ends", c.TestMaxTimeMS), Valid: fmt.Sprintf("less than %d seconds", c.TestMaxTimeMS/1000)}
	}
	if c.WarmupOperations > 0 {
		for _, w := range p.warmupPhases() {
			if c.WarmupOperations >= w.ops {
				return &config.Error{Key: key, Value: value, Msg: fmt.Sprintf("leaves nothing to measure in the %s phase, whose clients run %d operations each", w.name, w.ops), Valid: fmt.Sprintf("less than %d", w.ops)}
			}
		}
	}
	return nil
}

type warmedPhase struct {
	name string
	ops  int64 // per client
}

// warmupPhases are the phases a warm-up applies to, with their operations
// per client: the ingest (or the mixed phase) and the query rounds after
// the first.
func (p *Plan) warmupPhases() []warmedPhase {
	c := p.Config
	if !c.Rounds() {
		return []warmedPhase{{"main", p.mainOps()}}
	}
	var out []warmedPhase
	if p.Counts[Write] > 0 {
		out = append(out, warmedPhase{"ingest", p.Counts[Write]})
	}
	if c.QueryRounds > 1 {
		out = append(out, warmedPhase{"query", c.QueryLoop})
	}
	return out
}

// mainOps is how many operations each client runs in the mixed phase.
func (p *Plan) mainOps() int64 {
	var n int64
	for _, k := range p.Counts {
		n += k
	}
	return n
}

// Warmed reports whether a warm-up applies to a measured step: the ingest,
// the mixed phase and the query rounds after the first (round 1 follows
// the lifecycle: its first queries are the point of it).
func (s PlanStep) Warmed(c *config.Config) bool {
	if c.WarmupTimeS == 0 && c.WarmupOperations == 0 {
		return false
	}
	switch s.Kind {
	case StepMixed, StepIngest:
		return true
	case StepQuery:
		return s.Round > 1
	}
	return false
}
