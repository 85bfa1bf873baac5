package routine

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/pipeline"
	"github.com/tsbench/tsbench/record"
	"github.com/tsbench/tsbench/runner"
)

// ParseSides reads the baseline and the contenders (NAME=SERVER each),
// refusing a name that two sides take: every report and record tells the
// sides apart by it.
func ParseSides(baseline string, contenders []string) ([]Side, error) {
	var sides []Side
	for i, arg := range append([]string{baseline}, contenders...) {
		flag := "--contender"
		if i == 0 {
			flag = "--baseline"
		}
		s, err := ParseSide(flag, arg)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(sides, func(o Side) bool { return o.Name == s.Name }) {
			return nil, fmt.Errorf("%s=%s: the name %s is taken by another side (valid: a name a side)", flag, arg, s.Name)
		}
		sides = append(sides, s)
	}
	return sides, nil
}

// SideSets reads --side-set NAME:KEY=VALUE into each side's own sets.
func SideSets(sets []string, sides []Side) (map[string][]string, error) {
	perSide := map[string][]string{}
	for _, ss := range sets {
		name, kv, ok := strings.Cut(ss, ":")
		if !ok || !strings.Contains(kv, "=") || !slices.ContainsFunc(sides, func(s Side) bool { return s.Name == name }) {
			return nil, fmt.Errorf("--side-set=%q: give NAME:KEY=VALUE with the NAME of a side", ss)
		}
		perSide[name] = append(perSide[name], kv)
	}
	return perSide, nil
}

// ConfigChange is the keys whose values differ between the sides'
// configurations (each loaded with the side's own --side-set keys),
// sorted: the configuration change a routine compares. Where a server
// listens (HOST, PORT: a side's relay or proxy) and the CA its certificate
// is signed by (ES_CA_FILE: each secured node has its own) are not a
// change of its configuration, and a secret is never named.
func ConfigChange(configs []*config.Config) []string {
	var out []string
	if len(configs) < 2 {
		return nil
	}
	var values []map[string]string
	for _, c := range configs {
		values = append(values, c.Values())
	}
	for _, k := range configs[0].Keys() {
		if k.Name == "HOST" || k.Name == "PORT" || k.Name == "ES_CA_FILE" || k.Secret || config.IsSecretName(k.Name) {
			continue
		}
		for _, v := range values[1:] {
			if v[k.Name] != values[0][k.Name] {
				out = append(out, k.Name)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// EvenRuns is the number of runs a side the routine makes for the runs
// asked: the gate needs compare.MinRuns, and an odd number is rounded up
// (with a note) since reversed blocks come in pairs.
func EvenRuns(runs int) (int, string, error) {
	if runs < compare.MinRuns || runs > MaxRuns {
		return 0, "", fmt.Errorf("--runs=%d: the gate tests %d runs a side or more, and a routine makes at most %d (valid: an even number from %d to %d)", runs, compare.MinRuns, MaxRuns, compare.MinRuns+1, MaxRuns)
	}
	if runs%2 == 1 {
		return runs + 1, fmt.Sprintf("--runs=%d rounded up to %d: blocks in reversed order come in pairs, so that every side has the same mean position", runs, runs+1), nil
	}
	return runs, "", nil
}

// MaxRuns is the most runs a side a routine makes: a week of IoTDB's
// 80-second runs, and an order that --dry-run prints at once (a billion
// runs a side used to fill memory while the order was drawn).
const MaxRuns = 10000

// Results is where a routine writing into out keeps its records.
func Results(out string) string { return filepath.Join(out, "results") }

// CheckOut refuses an --out that holds an earlier routine's runs: a side
// must be this routine's runs only.
func CheckOut(out string) error {
	if recs, _ := (record.Store{Dir: Results(out)}).List(); len(recs) > 0 {
		return fmt.Errorf("--out=%s holds %d runs of an earlier routine: give another --out (a side must be this routine's runs only)", out, len(recs))
	}
	return nil
}

// Fits refuses a server spec the configuration's database cannot use: db
// is DB_SWITCH's driver, servers the provisioning kinds it measures, and
// embedded whether it needs no server.
func (s Side) Fits(db string, servers []string, embedded bool) error {
	switch s.Form {
	case Embedded:
		if !embedded && len(servers) > 0 {
			return fmt.Errorf("side %s is embedded, but DB_SWITCH=%s needs a server (give %s:VERSION, a distribution, git:PATH@REF or external)", s.Name, db, servers[0])
		}
	case External:
	default:
		if len(servers) == 0 {
			return fmt.Errorf("side %s=%s: DB_SWITCH=%s has no server to start (give %s=embedded)", s.Name, s.Spec, db, s.Name)
		}
		if s.Form == Release && !slices.Contains(servers, string(s.Kind)) {
			return fmt.Errorf("side %s=%s: DB_SWITCH=%s measures %s, not %s", s.Name, s.Spec, db, strings.Join(servers, " or "), s.Kind)
		}
	}
	return nil
}

// SameBuildsSeen refuses, after the first block, sides whose servers
// reported one build in their records (external servers, releases whose
// files differ only in where they lie), unless the A/A is declared.
func SameBuildsSeen(recs []*record.Record, sides []Side, aa bool) error {
	if aa {
		return nil
	}
	// In the sides' order, the baseline first, as every message names them.
	var names []string
	var ts []record.Target
	for _, s := range sides {
		for _, r := range recs {
			if r.Routine != nil && r.Routine.Side == s.Name {
				names = append(names, s.Name)
				ts = append(ts, r.Target)
				break
			}
		}
	}
	if same := compare.IdenticalBuilds(names, ts); len(same) > 0 {
		return fmt.Errorf("%w: the servers reported it after the first block: %s (declare an A/A with --aa)", ErrSameBuild, strings.Join(same, ", "))
	}
	return nil
}

// Answers is whether the routine's runs check their answers.
type Answers struct {
	Sets      []string // the runs' sets: CHECK_ANSWERS=true added where the routine turned it on
	Unchecked string   // why the answers are not checked; empty when they are
	Chosen    bool     // the configuration or a --set chose, not the routine
}

// AnswersByDefault turns CHECK_ANSWERS on for the routine's runs unless
// the configuration (p, loaded with sets) chose: a contender must not win
// by being wrong. Where the one function that decides it
// (runner.AnswersApply, as a routine runs) says the answers cannot be
// checked (a mixed phase, a run that writes nothing, a database that
// returns no answers), the routine goes on unchecked and says why.
func AnswersByDefault(p *pipeline.Prepared, sets []string) Answers {
	c := p.Loaded.Config
	if c.Given["CHECK_ANSWERS"] {
		a := Answers{Sets: sets, Chosen: true}
		if !c.CheckAnswers {
			a.Unchecked = "CHECK_ANSWERS=false in the configuration"
		}
		return a
	}
	if err := runner.AnswersApply(p.Plan, p.Driver, true); err != nil {
		return Answers{Sets: sets, Unchecked: "CHECK_ANSWERS " + err.Msg}
	}
	return Answers{Sets: append(slices.Clone(sets), "CHECK_ANSWERS=true")}
}
