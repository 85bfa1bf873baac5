package routine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/record"
)

// State is what a routine writes into its folder before its first run
// (StateFile): what --resume must find unchanged to go on with the same
// runs in the same order.
type State struct {
	// Tool is the tsbench build's version: another build may measure
	// otherwise.
	Tool string `json:"tool"`
	// Config is the configuration file as given and ConfigSHA256 its
	// content's checksum.
	Config       string `json:"config"`
	ConfigSHA256 string `json:"config_sha256"`
	// Inputs are the routine's inputs that decide its runs, a "name=value"
	// each, in the order of the command's flags.
	Inputs []string `json:"inputs"`
	// Seed drew the order (--order-seed).
	Seed uint64 `json:"order_seed"`
	// Sides are each side's name and the server it was made into.
	Sides []string `json:"sides"`
}

// StateFile is where a routine's State is kept in its folder.
func StateFile(out string) string { return filepath.Join(out, "routine.json") }

// ReadState reads the State of the routine in out, for --resume.
func ReadState(out string) (*State, error) {
	b, err := os.ReadFile(StateFile(out))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("--resume: %s holds no routine to resume (no %s: a routine writes it before its first run)", out, filepath.Base(StateFile(out)))
	}
	if err != nil {
		return nil, fmt.Errorf("--resume: %w", err)
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("--resume: %s is not a routine's state: %w", StateFile(out), err)
	}
	if _, err := os.Stat(filepath.Join(out, "summary.txt")); err == nil {
		return nil, fmt.Errorf("--resume: the routine in %s finished (its summary.txt is there): nothing to resume", out)
	}
	return &s, nil
}

// Write saves the state into out.
func (s *State) Write(out string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return record.WriteFileAtomic(StateFile(out), append(b, '\n'))
}

// Changed lists what differs between the state a routine was started
// with (s) and the one it would resume with (now), a sentence each.
func (s *State) Changed(now *State) []string {
	var out []string
	if s.Tool != now.Tool {
		out = append(out, fmt.Sprintf("the tsbench build was %s, now %s", s.Tool, now.Tool))
	}
	if s.ConfigSHA256 != now.ConfigSHA256 {
		out = append(out, fmt.Sprintf("the configuration %s changed (or another file is given: %s)", s.Config, now.Config))
	}
	if s.Seed != now.Seed {
		out = append(out, fmt.Sprintf("--order-seed was %d, now %d", s.Seed, now.Seed))
	}
	for _, d := range listDiff("", s.Inputs, now.Inputs) {
		out = append(out, d)
	}
	for _, d := range listDiff("side ", s.Sides, now.Sides) {
		out = append(out, d)
	}
	return out
}

// listDiff says which entries of was are gone from now and which are new.
func listDiff(what string, was, now []string) []string {
	var out []string
	for _, w := range was {
		if !slices.Contains(now, w) {
			out = append(out, fmt.Sprintf("%s%s was given, and is not now", what, w))
		}
	}
	for _, n := range now {
		if !slices.Contains(was, n) {
			out = append(out, fmt.Sprintf("%s%s is new", what, n))
		}
	}
	return out
}

// fileSHA256 is the checksum of a file's content.
func fileSHA256(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]), nil
}

// Done is how many runs of slots, in order, the records already hold,
// complete, for the sides named (the baseline first), rounded down to
// whole groups of group runs (a duet's block). The records of later slots
// (a run that failed, half a duet's block) are returned as left over.
func Done(slots []Slot, names []string, recs []*record.Record, group int) (done int, left []*record.Record) {
	find := func(sl Slot) *record.Record {
		for _, r := range recs {
			if r.Routine != nil && !r.Routine.Warmup && r.Routine.Side == names[sl.Side] && r.Routine.Block == sl.Block && r.Routine.Position == sl.Position {
				return r
			}
		}
		return nil
	}
	for done < len(slots) {
		r := find(slots[done])
		if r == nil || r.Status != record.StatusComplete {
			break
		}
		done++
	}
	done -= done % group
	for _, r := range recs {
		if r.Routine == nil || r.Routine.Warmup {
			continue
		}
		i := slices.IndexFunc(slots, func(sl Slot) bool {
			return names[sl.Side] == r.Routine.Side && sl.Block == r.Routine.Block && sl.Position == r.Routine.Position
		})
		if i < 0 || i >= done || find(slots[i]) != r {
			left = append(left, r)
		}
	}
	return done, left
}

// maskSets is sets (KEY=VALUE each) with the values of secret keys
// replaced: a routine's state is saved, and a secret never is.
func maskSets(sets []string, secret func(key string) bool) []string {
	var out []string
	for _, kv := range sets {
		prefix, set, _ := strings.Cut(kv, ":") // a --side-set's NAME:
		if !strings.Contains(prefix, "=") && strings.Contains(set, "=") {
			prefix += ":"
		} else {
			prefix, set = "", kv
		}
		k, _, _ := strings.Cut(set, "=")
		if secret(strings.ToUpper(strings.TrimSpace(k))) {
			set = k + "=" + config.Mask
		}
		out = append(out, prefix+set)
	}
	return out
}
