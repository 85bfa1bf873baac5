package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tsbench/tsbench/record"
)

// Build compares the runs of each side (refs name them, the baseline
// first) as bench compare and bench routine do: it refuses runs that do
// not compare (Admit, unless force) and says, in warnings that the
// comparison keeps for every report, what a reader must know: damaged
// records of the folder, a side whose runs started days apart, a run on
// two sides, differences between the sides; a --gate-server figure no
// run has is refused. The warnings returned are for
// stderr (with --paired's, which the report says in its notes instead).
func Build(refs []string, runs [][]*record.Record, damaged []error, opt Options, force bool) (*Comparison, []string, error) {
	var sides []Side
	for i, rs := range runs {
		sides = append(sides, SideOf(refs[i], rs))
	}
	var warnings []string
	for _, d := range damaged {
		// In the report too: a damaged record may be a run of one side.
		warnings = append(warnings, fmt.Sprintf("warning: %v; it is left out, so a side may have one run less", d))
	}
	// A label reused a week later pools the weeks: said, not refused.
	for i, sd := range sides {
		if len(sd.Runs) < 2 {
			continue
		}
		first, last := sd.Runs[0].StartedAt, sd.Runs[0].StartedAt
		for _, r := range sd.Runs {
			if r.StartedAt.Before(first) {
				first = r.StartedAt
			}
			if r.StartedAt.After(last) {
				last = r.StartedAt
			}
		}
		if span := last.Sub(first); span > record.PoolSpan {
			warnings = append(warnings, fmt.Sprintf("warning: the %d runs of %s started over %s (%s to %s): they are pooled as one side", len(sd.Runs), refs[i], record.Days(span), first.UTC().Format("2006-01-02"), last.UTC().Format("2006-01-02")))
		}
	}
	// The same run on two sides compares it with itself: every ratio is 1.
	seen := map[string]int{}
	for i, sd := range sides {
		for _, r := range sd.Runs {
			if j, ok := seen[r.ID]; ok && j != i {
				warnings = append(warnings, fmt.Sprintf("warning: run %s is on two sides (%s and %s): it is compared with itself", r.ID, refs[j], refs[i]))
			}
			seen[r.ID] = i
		}
	}
	admitted, err := Admit(sides, force)
	if err != nil {
		return nil, nil, err
	}
	warnings = append(warnings, admitted...)
	cmp := New(sides[0], sides[1:], opt)
	// A name no row has would gate nothing: bad usage, not a row untested.
	for _, name := range opt.GateServer {
		if figures := cmp.ServerFigures(); !slices.Contains(figures, name) {
			return nil, nil, fmt.Errorf("--gate-server %q: these runs have no server metric or telemetry figure of that name (valid: %s)", name, strings.Join(figures, ", "))
		}
	}
	for _, d := range slices.Concat(cmp.SameBuild(), cmp.Differences()) {
		warnings = append(warnings, "warning: "+d)
	}
	cmp.Warnings = append(warnings, cmp.Warnings...)
	if cmp.Unpaired != "" {
		// The report's notes say how the rows were tested; stderr warns.
		warnings = append(slices.Clip(warnings), "warning: --paired: "+cmp.Unpaired+"; the runs are tested unpaired")
	}
	return cmp, warnings, nil
}
