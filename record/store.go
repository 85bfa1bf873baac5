package record

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tsbench/tsbench/metrics"
)

// Store is the results folder: one <id>.json per run.
type Store struct{ Dir string }

// Save writes rec atomically: a reader sees the old file or the complete
// new one, never half a record.
func (s Store) Save(rec *Record) (string, error) {
	for i := range rec.Phases {
		for _, op := range rec.Phases[i].AllOperations() {
			if err := op.Encode(); err != nil {
				return "", err
			}
		}
	}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return "", fmt.Errorf("create results folder %s: %w", s.Dir, err)
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encode run record: %w", err)
	}
	path := filepath.Join(s.Dir, rec.ID+".json")
	if err := WriteFileAtomic(path, append(data, '\n')); err != nil {
		return "", fmt.Errorf("save run record: %w", err)
	}
	return path, nil
}

// WriteFileAtomic writes data to a temporary file beside path, syncs it and
// renames it over path.
func WriteFileAtomic(path string, data []byte) error {
	tmp, err := CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, werr := tmp.Write(data)
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(name)
		return err
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return err
	}
	return nil
}

// CreateTemp creates a new file in dir named prefix and a random suffix,
// with the mode 0666 less the umask, as a file the user writes would have:
// os.CreateTemp's 0600 would make every record, report and chart
// unreadable to the user's group once renamed into place.
func CreateTemp(dir, prefix string) (*os.File, error) {
	for range 100 {
		var b [6]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(filepath.Join(dir, prefix+hex.EncodeToString(b[:])), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("create a temporary file in %s: every name tried exists", dir)
}

// Load reads one record file.
func Load(path string) (*Record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rec Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, &DamagedError{Path: path, Err: err}
	}
	if rec.SchemaVersion > SchemaVersion {
		return nil, fmt.Errorf("%s has record format %d; this tsbench reads up to %d, so update tsbench", path, rec.SchemaVersion, SchemaVersion)
	}
	if rec.ID == "" {
		return nil, &DamagedError{Path: path, Err: errors.New("it has no id")}
	}
	if err := rec.check(); err != nil {
		return nil, &DamagedError{Path: path, Err: err}
	}
	return &rec, nil
}

// List returns every record in the folder, oldest first. Files that are not
// records are skipped and reported in the second result.
func (s Store) List() ([]*Record, []error) {
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, []error{err}
	}
	var recs []*Record
	var errs []error
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		rec, err := Load(filepath.Join(s.Dir, e.Name()))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		recs = append(recs, rec)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].ID < recs[j].ID })
	return recs, errs
}

// Found is what an argument names: its runs, the files of the folder that
// are not readable records, and a note when the argument could have named
// other runs too.
type Found struct {
	Runs    []*Record
	Damaged []error
	Note    string
}

// Find returns the runs an argument names (Resolve, without its note).
func (s Store) Find(ref string) (recs []*Record, damaged []error, err error) {
	f, err := s.Resolve(ref)
	return f.Runs, f.Damaged, err
}

// Resolve returns the runs an argument names: a record file path, a run
// id, a label (every run with it, oldest first), or a unique prefix of an
// id, in that order, so that no label can shadow a run's id; when the
// argument is also another run's label or the start of other ids, the note
// says which it named. Damaged are the files of the folder that are not
// readable records: a truncated record cannot say its label, so a side of
// a comparison may be missing a run, and the caller must say so rather
// than drop it silently.
func (s Store) Resolve(ref string) (Found, error) {
	fs, err := s.ResolveAll([]string{ref})
	return fs[0], err
}

// ResolveAll resolves every argument of a command as Resolve does, reading
// the folder once (reading a record checks its histograms, so a folder of
// hundreds of runs costs a fraction of a second each time). It stops at
// the first argument that names nothing; the Found of each argument up to
// it is returned, each with the folder's damaged files.
func (s Store) ResolveAll(refs []string) ([]Found, error) {
	var all []*Record
	var damaged []error
	listed := false
	out := make([]Found, 0, len(refs))
	for _, ref := range refs {
		if strings.HasSuffix(ref, ".json") {
			if _, err := os.Stat(ref); err == nil {
				rec, err := Load(ref)
				if err != nil {
					return append(out, Found{}), err
				}
				out = append(out, Found{Runs: []*Record{rec}})
				continue
			}
		}
		if !listed {
			all, damaged = s.List()
			listed = true
		}
		f, err := s.resolveIn(all, damaged, ref)
		out = append(out, f)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// resolveIn is Resolve of one argument among the folder's records.
func (s Store) resolveIn(all []*Record, damaged []error, ref string) (Found, error) {
	named, note, err := ResolveRef(Refs(all), damaged, s.Dir, ref)
	f := Found{Damaged: damaged, Note: note}
	for _, i := range named {
		f.Runs = append(f.Runs, all[i])
	}
	return f, err
}

// Ref is what naming a run by an argument reads of it: its id and label.
type Ref struct{ ID, Label string }

// ResolveRef is Resolve's rule over the runs of the folder dir, given by
// their id and label (oldest first): the indexes of the runs ref names, a
// note when it could have named others, or why it names none. Damaged are
// the folder's files that are not readable records.
func ResolveRef(all []Ref, damaged []error, dir, ref string) (named []int, note string, err error) {
	exact := -1
	var byLabel, byPrefix []int
	for i, r := range all {
		switch {
		case r.ID == ref:
			exact = i
		case strings.HasPrefix(r.ID, ref):
			byPrefix = append(byPrefix, i)
		}
		if r.Label == ref {
			byLabel = append(byLabel, i)
		}
	}
	switch {
	case exact >= 0:
		if n := len(byLabel); n > 0 && (n > 1 || byLabel[0] != exact) {
			note = fmt.Sprintf("%q is the id of run %s and the label of %d runs: it names the run with that id", ref, all[exact].ID, n)
		}
		return []int{exact}, note, nil
	case len(byLabel) > 0:
		if len(byPrefix) > 0 {
			note = fmt.Sprintf("%q is a label and the start of %d run ids: it names the %d runs labelled so", ref, len(byPrefix), len(byLabel))
		}
		return byLabel, note, nil
	case len(byPrefix) == 1:
		return byPrefix, "", nil
	case len(byPrefix) > 1:
		return nil, "", fmt.Errorf("%q matches %d run ids; give more of the id", ref, len(byPrefix))
	}
	for _, d := range damaged {
		var bad *DamagedError
		if errors.As(d, &bad) && strings.HasPrefix(strings.TrimSuffix(filepath.Base(bad.Path), ".json"), ref) {
			return nil, "", fmt.Errorf("the record of run %q cannot be read: %w", ref, d)
		}
	}
	return nil, "", fmt.Errorf("no run with id or label %q in %s (bench list shows the runs there)", ref, dir)
}

// DamagedError is a file of the results folder that is not a readable
// record (truncated, edited, or not a record at all).
type DamagedError struct {
	Path string
	Err  error
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("%s is not a readable run record: %v", e.Path, e.Err)
}
func (e *DamagedError) Unwrap() error { return e.Err }

// Operation finds the snapshot of an operation in a phase.
func (p *Phase) Operation(name string) *metrics.Snapshot {
	for _, op := range p.Operations {
		if op.Operation == name {
			return op
		}
	}
	return nil
}

// Refs are the id and label of each record.
func Refs(recs []*Record) []Ref {
	out := make([]Ref, len(recs))
	for i, r := range recs {
		out[i] = Ref{ID: r.ID, Label: r.Label}
	}
	return out
}
