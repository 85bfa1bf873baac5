package record

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/metrics"
)

// instanceKey is the one workload key the instances of a distributed run
// differ in; the merged record gives it the range "0..n-1".
const instanceKey = config.InstanceKey

// MergeOptions tune Merge.
type MergeOptions struct {
	Label string
	// Force merges a run with instances missing; the result is marked
	// incomplete and names them.
	Force bool
	// Existing are the records already saved: a merge of runs that one of
	// them already merged is refused, since compare would count the same
	// runs twice as two runs of a side.
	Existing []*Record
}

// Merge makes one record of the records of a distributed run's instances
// (BENCHMARK_CLUSTER, BENCHMARK_INSTANCES = n): counts and points summed,
// latency histograms merged exactly, each phase's per-second windows
// aligned on wall-clock time (to the whole second) and summed, steps and
// verify results gathered. It refuses records that are no instances,
// instances of different workloads, builds or databases, the same instance
// twice, an incomplete set unless Force, runs one of opt.Existing already
// merged, and a label that would shadow a saved run (CheckLabel). A run
// given twice (by its id and its label) counts once.
func Merge(recs []*Record, opt MergeOptions) (*Record, error) {
	if err := CheckLabel(opt.Label, Refs(opt.Existing)); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	recs = slices.DeleteFunc(slices.Clone(recs), func(r *Record) bool {
		dup := seen[r.ID]
		seen[r.ID] = true
		return dup
	})
	if len(recs) == 0 {
		return nil, fmt.Errorf("nothing to merge")
	}
	byIndex := map[int]*Record{}
	n := 0
	for _, r := range recs {
		switch {
		case r.Instance == nil:
			return nil, fmt.Errorf("run %s is not an instance of a distributed run (it ran without BENCHMARK_CLUSTER=true)", r.ID)
		case len(r.Instance.Merged) > 0:
			return nil, fmt.Errorf("run %s is already a merge of %d runs", r.ID, len(r.Instance.Merged))
		case n != 0 && r.Instance.Count != n:
			return nil, fmt.Errorf("run %s is instance %d of %d, run %s of %d: they are not one distributed run", r.ID, r.Instance.Index, r.Instance.Count, recs[0].ID, n)
		}
		n = r.Instance.Count
		if prev, dup := byIndex[r.Instance.Index]; dup {
			return nil, fmt.Errorf("runs %s and %s are both instance %d: give the runs of one distributed run (a label of its own per run helps)", prev.ID, r.ID, r.Instance.Index)
		}
		byIndex[r.Instance.Index] = r
	}
	first := recs[0]
	base := instanceFingerprint(first)
	for _, r := range recs[1:] {
		if fp := instanceFingerprint(r); fp != base {
			diff := slices.DeleteFunc(FingerprintDiff(first, r), func(d string) bool { return strings.HasPrefix(d, instanceKey+":") })
			return nil, fmt.Errorf("run %s did other work than run %s, so they are not one distributed run: %s", r.ID, first.ID, strings.Join(diff, "; "))
		}
		if r.Tool.Version != first.Tool.Version || r.Target.DB != first.Target.DB {
			return nil, fmt.Errorf("run %s (tsbench %s, %s) and run %s (tsbench %s, %s) are not one distributed run", r.ID, r.Tool.Version, r.Target.DB, first.ID, first.Tool.Version, first.Target.DB)
		}
	}
	var missing []int
	var ordered []*Record
	for i := 0; i < n; i++ {
		if r, ok := byIndex[i]; ok {
			ordered = append(ordered, r)
		} else {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 && !opt.Force {
		return nil, fmt.Errorf("%s missing, so the merge would not be the run (--force merges what there is and marks it incomplete)", missingText(missing, n))
	}
	phases, err := mergePhases(ordered)
	if err != nil {
		return nil, err
	}
	m := &Record{
		SchemaVersion: SchemaVersion,
		Label:         opt.Label,
		Status:        StatusComplete,
		Tool:          first.Tool,
		Target:        Target{DB: first.Target.DB, Version: first.Target.Version},
		StartedAt:     first.StartedAt,
		FinishedAt:    first.FinishedAt,
		WorkloadKeys:  first.WorkloadKeys,
		Config:        map[string]string{},
		Phases:        phases,
		Instance:      &Instance{Index: -1, Count: n, Missing: missing},
		// The server's own figures describe the whole server over the run:
		// every instance read the same ones, so the first instance's stand.
		ServerMetrics:      first.ServerMetrics,
		ServerMetricsError: first.ServerMetricsError,
	}
	if m.Label == "" {
		m.Label = commonLabel(ordered)
	}
	for k, v := range first.Config {
		m.Config[k] = v
	}
	m.Config[instanceKey] = fmt.Sprintf("0..%d", n-1)
	m.Fingerprint = config.Fingerprint(m.Config, m.WorkloadKeys)
	hosts := map[string]bool{}
	var versions []string
	for _, r := range ordered {
		m.Instance.Merged = append(m.Instance.Merged, r.ID)
		if r.StartedAt.Before(m.StartedAt) {
			m.StartedAt = r.StartedAt
		}
		if r.FinishedAt.After(m.FinishedAt) {
			m.FinishedAt = r.FinishedAt
		}
		if !hosts[r.Host.Hostname] {
			hosts[r.Host.Hostname] = true
			m.Host.CPUs += r.Host.CPUs
			m.Host.MemoryBytes += r.Host.MemoryBytes
			m.Host.Hostname = strings.TrimPrefix(m.Host.Hostname+", "+r.Host.Hostname, ", ")
		}
		m.Host.OS, m.Host.Arch = r.Host.OS, r.Host.Arch
		for _, a := range r.Target.Address {
			if !slices.Contains(m.Target.Address, a) {
				m.Target.Address = append(m.Target.Address, a)
			}
		}
		if !slices.Contains(versions, r.Target.Version) {
			versions = append(versions, r.Target.Version)
		}
		for _, s := range r.Steps {
			s.Name = fmt.Sprintf("instance %d: %s", r.Instance.Index, s.Name)
			m.Steps = append(m.Steps, s)
		}
		for _, x := range r.Notes {
			m.Notes = append(m.Notes, fmt.Sprintf("instance %d: %s", r.Instance.Index, x))
		}
		for _, x := range r.Warnings {
			m.Warnings = append(m.Warnings, fmt.Sprintf("instance %d: %s", r.Instance.Index, x))
		}
		if r.Verify != nil {
			if m.Verify == nil {
				m.Verify = &Verify{}
			}
			m.Verify.Devices += r.Verify.Devices
			m.Verify.Expected += r.Verify.Expected
			m.Verify.Found += r.Verify.Found
			m.Verify.Mismatches = append(m.Verify.Mismatches, r.Verify.Mismatches...)
		}
		// The worst status of the parts is the merge's.
		if r.Status != StatusComplete && m.Status != StatusIncomplete {
			m.Status = r.Status
		}
		if r.Error != "" {
			m.Error = strings.TrimPrefix(m.Error+"; ", "; ") + fmt.Sprintf("instance %d (%s): %s", r.Instance.Index, r.ID, r.Error)
		}
	}
	m.Target.Version = strings.Join(versions, ", ")
	m.Notes = append([]string{fmt.Sprintf("merged from %d instances of a distributed run: %s", len(ordered), strings.Join(m.Instance.Merged, ", "))}, m.Notes...)
	if len(missing) > 0 {
		m.Status = StatusIncomplete
		m.Error = strings.TrimPrefix(m.Error+"; ", "; ") + missingText(missing, n) + " missing (merged with --force)"
	}
	for _, r := range opt.Existing {
		if r.Instance != nil && slices.Equal(r.Instance.Merged, m.Instance.Merged) {
			return nil, fmt.Errorf("these runs are already merged as run %s (label %s); delete that record to merge them again", r.ID, r.Label)
		}
	}
	m.ID = NewID(m.StartedAt, m.Label+"|merge|"+strings.Join(m.Instance.Merged, ","))
	return m, nil
}

// instanceFingerprint is the fingerprint of a record's workload but for
// the instance index: what instances of one distributed run share.
func instanceFingerprint(r *Record) string {
	return config.InstanceFingerprint(r.Config, r.WorkloadKeys)
}

// mergePhases merges the instances' phases position by position; every
// instance ran the same plan, so the same phases in the same order.
func mergePhases(recs []*Record) ([]Phase, error) {
	first := recs[0]
	for _, r := range recs[1:] {
		if len(r.Phases) != len(first.Phases) {
			return nil, fmt.Errorf("run %s has %d measured phases, run %s %d: an instance stopped early (merge the complete ones with --force after removing it)", r.ID, len(r.Phases), first.ID, len(first.Phases))
		}
	}
	out := make([]Phase, len(first.Phases))
	for i := range first.Phases {
		p := first.Phases[i]
		start, end := p.StartedAt, p.StartedAt.Add(p.Elapsed())
		for _, r := range recs {
			q := r.Phases[i]
			if q.Name != p.Name || q.Round != p.Round || q.Variant != p.Variant {
				return nil, fmt.Errorf("phase %d is %s of run %s but %s of run %s", i+1, q.Group(), r.ID, p.Group(), first.ID)
			}
			if q.StartedAt.Before(start) {
				start = q.StartedAt
			}
			if e := q.StartedAt.Add(q.Elapsed()); e.After(end) {
				end = e
			}
		}
		// A variant's own requests: the first instance's show what the
		// template became (the others' differ only in their parameters).
		merged := Phase{Name: p.Name, Round: p.Round, Variant: p.Variant, StartedAt: start, Seconds: end.Sub(start).Seconds(), Requests: p.Requests}
		var parts [][]*metrics.Snapshot
		for _, r := range recs {
			q := r.Phases[i]
			merged.Clients += q.Clients
			// Windows count from each instance's own phase start: shift
			// them to the merged phase's, to the nearest second.
			k := int(math.Round(q.StartedAt.Sub(start).Seconds()))
			var ops []*metrics.Snapshot
			for _, o := range q.Operations {
				ops = append(ops, o.Delayed(k))
			}
			parts = append(parts, ops)
		}
		merged.Operations = metrics.Merge(parts...)
		// Warm-ups merge as they are: each instance's lasted its own time
		// before its measured part, and the longest is the merged one's.
		var warm [][]*metrics.Snapshot
		for _, r := range recs {
			if w := r.Phases[i].Warmup; w != nil {
				if merged.Warmup == nil {
					merged.Warmup = &Warmup{}
				}
				merged.Warmup.Seconds = max(merged.Warmup.Seconds, w.Seconds)
				warm = append(warm, w.Operations)
			}
		}
		if merged.Warmup != nil {
			merged.Warmup.Operations = metrics.Merge(warm...)
		}
		// Each instance sampled its own machine: the sources stay apart,
		// named by their instance, their times each instance's own.
		for _, r := range recs {
			for _, src := range r.Phases[i].Server {
				src.Name = fmt.Sprintf("instance %d: %s", r.Instance.Index, src.Name)
				merged.Server = append(merged.Server, src)
			}
		}
		for _, o := range merged.AllOperations() {
			if err := o.Encode(); err != nil {
				return nil, err
			}
		}
		out[i] = merged
	}
	return out, nil
}

// commonLabel is the label every run has, or the first run's label with
// "-merged", or "merged".
func commonLabel(recs []*Record) string {
	l := recs[0].Label
	for _, r := range recs[1:] {
		if r.Label != l {
			l = ""
		}
	}
	if l == "" {
		return "merged"
	}
	return l + "-merged"
}

// missingText says which instances are missing: "instance 1 of 3 is",
// "instances 1, 2 of 3 are".
func missingText(missing []int, n int) string {
	if len(missing) == 1 {
		return fmt.Sprintf("instance %d of %d is", missing[0], n)
	}
	return fmt.Sprintf("instances %s of %d are", ints(missing), n)
}

func ints(xs []int) string {
	sort.Ints(xs)
	var s []string
	for _, x := range xs {
		s = append(s, fmt.Sprint(x))
	}
	return strings.Join(s, ", ")
}
