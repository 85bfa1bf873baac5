package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tsbench/tsbench/record"
)

// Servers names the server each side measured, a line a side, for the top
// of every report: which build a ratio is about must never be a guess.
// A side whose runs measured several servers lists each.
func (c *Comparison) Servers() []string {
	var out []string
	for i, s := range c.sides() {
		role := "Contender"
		if i == 0 {
			role = "Baseline"
		}
		var ids []string
		for _, r := range s.Runs {
			if id := r.Target.Identity(); !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("%s %s measured %s.", role, s.Label, strings.Join(ids, " and ")))
	}
	return out
}

// SameBuild says, for every contender that measured the very build of the
// baseline (every run of both sides with one known build identity: the
// server's reported build or the provisioned files), that the comparison
// is an A/A. Sides whose build is unknown (an embedded database, old
// records) are never said to be the same.
func (c *Comparison) SameBuild() []string {
	base, ok := buildOf(c.Baseline)
	if !ok {
		return nil
	}
	var out []string
	for _, s := range c.Contenders {
		k, ok := buildOf(s)
		if !ok || k != base {
			continue
		}
		why := "a ratio here compares the build with itself"
		switch {
		case declaredAA(c.Baseline) && declaredAA(s):
			why = "an A/A, as declared (--aa)"
		case len(changeOf(c.Baseline)) > 0 && len(changeOf(s)) > 0:
			why = "a comparison of configurations, whose ratios are the keys' change, said below"
		}
		out = append(out, fmt.Sprintf("SAME SERVER BUILD: %s and %s both measured %s: %s.", c.Baseline.Label, s.Label, base, why))
	}
	return out
}

// Changes says, for every contender that a routine ran with other values
// of some keys than the baseline (record.Routine.Change), which keys and
// their values on each side: the configuration change its ratios measure.
func (c *Comparison) Changes() []string {
	keys := changeOf(c.Baseline)
	if len(keys) == 0 {
		return nil
	}
	b := c.Baseline.Runs[0].Config
	var out []string
	for _, s := range c.Contenders {
		if !slices.Equal(changeOf(s), keys) {
			continue
		}
		o := s.Runs[0].Config
		var parts []string
		for _, k := range keys {
			if b[k] != o[k] {
				parts = append(parts, fmt.Sprintf("%s %q → %q", k, b[k], o[k]))
			}
		}
		if len(parts) > 0 {
			out = append(out, fmt.Sprintf("CONFIGURATION CHANGE: %s → %s: %s (--side-set); the ratios measure this change.", c.Baseline.Label, s.Label, strings.Join(parts, ", ")))
		}
	}
	return out
}

// Lead is what every format says before its tables: the servers, an
// identical build, a configuration change, and what else differs between
// the sides.
func (c *Comparison) Lead() []string {
	return slices.Concat(c.Servers(), c.SameBuild(), c.Changes(), c.Differences())
}

// changeOf is the configuration change every run of a side declares, nil
// unless all declare the same.
func changeOf(s Side) []string {
	var keys []string
	for i, r := range s.Runs {
		if r.Routine == nil || len(r.Routine.Change) == 0 || i > 0 && !slices.Equal(r.Routine.Change, keys) {
			return nil
		}
		keys = r.Routine.Change
	}
	return keys
}

func (c *Comparison) sides() []Side { return append([]Side{c.Baseline}, c.Contenders...) }

// buildOf is the one build identity all of a side's runs share, if known.
func buildOf(s Side) (string, bool) {
	k := ""
	for i, r := range s.Runs {
		b := r.Target.BuildKey()
		if b == "" || i > 0 && b != k {
			return "", false
		}
		k = b
	}
	return k, k != ""
}

func declaredAA(s Side) bool {
	for _, r := range s.Runs {
		if r.Routine == nil || !r.Routine.AA {
			return false
		}
	}
	return len(s.Runs) > 0
}

// IdenticalBuilds reports the pairs of targets among ts that are one build
// (their BuildKey is known and equal), as "a and b": the routine refuses to
// start on them unless the user declares an A/A.
func IdenticalBuilds(names []string, ts []record.Target) []string {
	var out []string
	for i := range ts {
		for j := i + 1; j < len(ts); j++ {
			if k := ts[i].BuildKey(); k != "" && k == ts[j].BuildKey() {
				out = append(out, fmt.Sprintf("%s and %s (%s)", names[i], names[j], k))
			}
		}
	}
	return out
}
