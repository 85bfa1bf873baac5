package compare

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tsbench/tsbench/record"
)

// SideOf names the side of the runs an argument found: the argument, or the
// label of the one run it found by id, so a run given by its id still shows
// under the name it ran with.
func SideOf(ref string, runs []*record.Record) Side {
	label := ref
	if len(runs) == 1 && runs[0].Label != "" && !strings.HasSuffix(ref, ".json") && runs[0].Label != ref {
		label = runs[0].Label
	}
	return Side{Label: label, Runs: runs}
}

// Admit refuses sides that do not compare: runs of another workload than
// the baseline's first run (their differing keys named; a routine's
// configuration change, record.Routine.Change, is admitted where those
// keys are all that differ) and failed runs,
// which measure failures, not the database. With force it admits them and
// returns each as a warning instead; runs that are incomplete are always
// admitted with a warning.
func Admit(sides []Side, force bool) (warnings []string, err error) {
	base := sides[0].Runs[0]
	var mismatched, failed []string
	for _, s := range sides {
		for _, r := range s.Runs {
			if r.Fingerprint != base.Fingerprint && !changeDeclared(base, r) {
				diff := record.FingerprintDiff(base, r)
				mismatched = append(mismatched, fmt.Sprintf("run %s (%s) has workload %s, the baseline %s: %s", r.ID, s.Label, r.Fingerprint, base.Fingerprint, strings.Join(diff, "; ")))
			}
			switch r.Status {
			case record.StatusComplete:
			case record.StatusFailed:
				failed = append(failed, fmt.Sprintf("run %s (%s) failed: %s", r.ID, s.Label, r.Error))
			default:
				warnings = append(warnings, fmt.Sprintf("warning: run %s (%s) is %s: %s", r.ID, s.Label, r.Status, r.Error))
			}
		}
	}
	if len(failed) > 0 {
		if !force {
			return nil, fmt.Errorf("failed runs measure failures, not the database (--force compares them anyway):\n%s", strings.Join(failed, "\n"))
		}
		for _, f := range failed {
			warnings = append(warnings, "warning: "+f)
		}
	}
	if len(mismatched) > 0 {
		if !force {
			return nil, errors.New("the runs did not do the same work, so their numbers do not compare (--force compares them anyway):\n" + strings.Join(mismatched, "\n"))
		}
		for _, m := range mismatched {
			warnings = append(warnings, "warning: "+m)
		}
	}
	return warnings, nil
}

// changeDeclared says two runs of one routine differ in their workload
// only in the keys both declare their comparison's change.
func changeDeclared(a, b *record.Record) bool {
	if a.Routine == nil || b.Routine == nil || len(a.Routine.Change) == 0 {
		return false
	}
	for _, k := range record.FingerprintDiffKeys(a, b) {
		if !slices.Contains(a.Routine.Change, k) || !slices.Contains(b.Routine.Change, k) {
			return false
		}
	}
	return true
}
