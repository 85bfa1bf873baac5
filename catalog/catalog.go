// Package catalog is the results folder's index: a line per run record
// (its id, label, times, status, database and server, workload
// fingerprint, and compare's values of every operation), kept beside the
// records, so that bench list, bench history and the look-up of runs by
// label read one small file and not every record whole. The records stay
// the truth: a reader checks the index against the folder (names, sizes,
// modification times) and reads whole only the records it does not match,
// then writes the index again; a missing or unreadable index is rebuilt
// from the records.
package catalog

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tsbench/tsbench/compare"
	"github.com/tsbench/tsbench/record"
)

const (
	// File is the index's name in the results folder (hidden: the folder
	// lists records).
	File     = ".index.jsonl"
	lockName = ".index.lock"
	// version changes when an entry's meaning does; an index of another
	// version is rebuilt.
	version = 2
)

// header is the index's first line: its version and the metrics a row of
// values holds, in order (compare.Metrics when it was written; other
// metrics mean a rebuild).
type header struct {
	Version int      `json:"tsbench_index"`
	Metrics []string `json:"metrics"`
}

// Entry is one run's line of the index.
type Entry struct {
	ID         string    `json:"id"`
	Label      string    `json:"label,omitempty"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	Status     string    `json:"status"`
	DB         string    `json:"db"`
	Version    string    `json:"version,omitempty"`
	// Server is the server's identity as reports print it
	// (record.Target.Identity); BuildKey what makes two the same build.
	Server      string `json:"server,omitempty"`
	BuildKey    string `json:"build_key,omitempty"`
	Host        string `json:"host,omitempty"`
	Fingerprint string `json:"fingerprint"`
	// Side is the routine's side of the run, if a routine made it.
	Side string `json:"side,omitempty"`
	// File, Size and ModTime (Unix nanoseconds) are the record file as it
	// was indexed: a file that no longer matches is read again.
	File    string `json:"file"`
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime"`

	// Sum is the CRC-32 of the values' text on the line: a line cut short
	// by a crash, or run into by the next one, does not match it.
	Sum uint32 `json:"sum"`

	values []byte // the values' text after the tab (base64), decoded on demand
}

// Values are the run's values as compare.RunValues gives them, read from
// the index.
func (e *Entry) Values() (map[compare.Key]float64, []compare.Key, error) {
	return e.ValuesOf(nil)
}

// ValuesOf are the run's values of the metrics named (all when nil), in
// the order compare.RunValues gives them.
func (e *Entry) ValuesOf(metrics []string) (map[compare.Key]float64, []compare.Key, error) {
	var want uint64
	for _, m := range metrics {
		if i := slices.IndexFunc(compare.Metrics, func(c compare.Metric) bool { return c.Name == m }); i >= 0 {
			want |= 1 << i
		}
	}
	if metrics == nil {
		want = ^uint64(0)
	}
	raw, err := base64.StdEncoding.DecodeString(string(e.values))
	if err != nil {
		return nil, nil, fmt.Errorf("the index entry of run %s: %w (delete %s to rebuild it)", e.ID, err, File)
	}
	vals := map[compare.Key]float64{}
	var order []compare.Key
	err = decodeValues(raw, func(phase string, round int, op string, metric int, v float64) {
		if want&(1<<metric) == 0 {
			return
		}
		k := compare.Key{Metric: compare.Metrics[metric].Name, Phase: phase, Round: round, Op: op}
		vals[k] = v
		order = append(order, k)
	}, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("the index entry of run %s: %w (delete %s to rebuild it)", e.ID, err, File)
	}
	return vals, order, nil
}

// ServerValues are the run's server values as compare.RunServerValues
// gives them, read from the index.
func (e *Entry) ServerValues() ([]compare.ServerValue, error) {
	raw, err := base64.StdEncoding.DecodeString(string(e.values))
	if err != nil {
		return nil, fmt.Errorf("the index entry of run %s: %w (delete %s to rebuild it)", e.ID, err, File)
	}
	var out []compare.ServerValue
	if err := decodeValues(raw, func(string, int, string, int, float64) {}, func(sv compare.ServerValue) { out = append(out, sv) }); err != nil {
		return nil, fmt.Errorf("the index entry of run %s: %w (delete %s to rebuild it)", e.ID, err, File)
	}
	return out, nil
}

// The values of an entry are binary, then base64 on its line: the phase
// and operation names once (a table of strings), then a row per operation
// in a phase: its phase, round and operation, a bit per metric of
// compare.Metrics it has, and those values as float64 bits, little-endian;
// then the server's values (compare.RunServerValues): their group, source,
// figure, unit and statistic in the table, and the value.
// Numbers are unsigned varints. A history of a thousand runs decodes in
// milliseconds, where JSON took a tenth of a second.

func encodeValues(rec *record.Record) []byte {
	vals, order := compare.RunValues(rec)
	var strs []string
	index := map[string]uint64{}
	str := func(s string) uint64 {
		i, ok := index[s]
		if !ok {
			i = uint64(len(strs))
			index[s] = i
			strs = append(strs, s)
		}
		return i
	}
	type row struct {
		phase, round, op, mask uint64
		v                      map[int]float64
	}
	var rows []*row
	at := map[compare.Key]*row{} // by phase, round and operation
	for _, k := range order {
		id := compare.Key{Phase: k.Phase, Round: k.Round, Op: k.Op}
		r := at[id]
		if r == nil {
			r = &row{phase: str(k.Phase), round: uint64(k.Round), op: str(k.Op), v: map[int]float64{}}
			at[id] = r
			rows = append(rows, r)
		}
		m := slices.IndexFunc(compare.Metrics, func(c compare.Metric) bool { return c.Name == k.Metric })
		r.mask |= 1 << m
		r.v[m] = vals[k]
	}
	// The server's figures after the operations', their names in the
	// same table of strings.
	server := compare.RunServerValues(rec)
	for _, sv := range server {
		for _, x := range []string{sv.Group, sv.Source, sv.Figure, sv.Unit, sv.Stat} {
			str(x)
		}
	}
	var b []byte
	b = binary.AppendUvarint(b, uint64(len(strs)))
	for _, s := range strs {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, uint64(len(rows)))
	for _, r := range rows {
		b = binary.AppendUvarint(b, r.phase)
		b = binary.AppendUvarint(b, r.round)
		b = binary.AppendUvarint(b, r.op)
		b = binary.AppendUvarint(b, r.mask)
		for m := range compare.Metrics {
			if r.mask&(1<<m) != 0 {
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(r.v[m]))
			}
		}
	}
	b = binary.AppendUvarint(b, uint64(len(server)))
	for _, sv := range server {
		for _, x := range []string{sv.Group, sv.Source, sv.Figure, sv.Unit, sv.Stat} {
			b = binary.AppendUvarint(b, index[x])
		}
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(sv.Value))
	}
	return b
}

// decodeValues calls fn with each value of an operation encodeValues
// wrote, in its order, and server (unless nil) with each server value.
func decodeValues(b []byte, fn func(phase string, round int, op string, metric int, v float64), server func(compare.ServerValue)) error {
	bad := errors.New("its values are cut short or damaged")
	next := func() (uint64, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	n, ok := next()
	if !ok || n > uint64(len(b)) {
		return bad
	}
	strs := make([]string, n)
	for i := range strs {
		l, ok := next()
		if !ok || l > uint64(len(b)) {
			return bad
		}
		strs[i], b = string(b[:l]), b[l:]
	}
	rows, ok := next()
	if !ok {
		return bad
	}
	for range rows {
		phase, ok1 := next()
		round, ok2 := next()
		op, ok3 := next()
		mask, ok4 := next()
		if !ok1 || !ok2 || !ok3 || !ok4 || phase >= uint64(len(strs)) || op >= uint64(len(strs)) || mask>>len(compare.Metrics) != 0 {
			return bad
		}
		for m := range compare.Metrics {
			if mask&(1<<m) == 0 {
				continue
			}
			if len(b) < 8 {
				return bad
			}
			fn(strs[phase], int(round), strs[op], m, math.Float64frombits(binary.LittleEndian.Uint64(b)))
			b = b[8:]
		}
	}
	n, ok = next()
	if !ok {
		return bad
	}
	for range n {
		var x [5]string
		for i := range x {
			j, ok := next()
			if !ok || j >= uint64(len(strs)) {
				return bad
			}
			x[i] = strs[j]
		}
		if len(b) < 8 {
			return bad
		}
		if server != nil {
			server(compare.ServerValue{Group: x[0], Source: x[1], Figure: x[2], Unit: x[3], Stat: x[4], Value: math.Float64frombits(binary.LittleEndian.Uint64(b))})
		}
		b = b[8:]
	}
	if len(b) != 0 {
		return bad
	}
	return nil
}

// entryOf is a record's entry, its file as saved.
func entryOf(rec *record.Record, file string, info fs.FileInfo) *Entry {
	e := &Entry{
		ID: rec.ID, Label: rec.Label, StartedAt: rec.StartedAt, FinishedAt: rec.FinishedAt, Status: rec.Status,
		DB: rec.Target.DB, Version: rec.Target.Version, Server: rec.Target.Identity(), BuildKey: rec.Target.BuildKey(),
		Host: rec.Host.Hostname, Fingerprint: rec.Fingerprint,
		File: file, Size: info.Size(), ModTime: info.ModTime().UnixNano(),
	}
	if rec.Routine != nil {
		e.Side = rec.Routine.Side
	}
	e.values = base64.StdEncoding.AppendEncode(nil, encodeValues(rec))
	e.Sum = crc32.ChecksumIEEE(e.values)
	return e
}

// line is the entry as the index holds it: the summary, a tab, the values.
func (e *Entry) line() ([]byte, error) {
	head, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	out := append(head, '\t')
	out = append(out, e.values...)
	return append(out, '\n'), nil
}

func headerLine() []byte {
	h := header{Version: version}
	for _, m := range compare.Metrics {
		h.Metrics = append(h.Metrics, m.Name)
	}
	b, _ := json.Marshal(h) // strings and an int
	return append(b, '\n')
}

// Save saves a record in the store and adds its entry to the index, under
// the index's lock, so that two processes saving at once both land.
// indexErr says the entry could not be added (the record is saved; the
// next reader of the index adds it).
func Save(store record.Store, rec *record.Record) (path string, indexErr, err error) {
	path, err = store.Save(rec)
	if err != nil {
		return "", nil, err
	}
	return path, addEntry(store.Dir, path, rec), nil
}

func addEntry(dir, path string, rec *record.Record) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	line, err := entryOf(rec, filepath.Base(path), info).line()
	if err != nil {
		return err
	}
	return locked(dir, func() error {
		f, err := os.OpenFile(filepath.Join(dir, File), os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		switch st, err := f.Stat(); {
		case err != nil:
			f.Close()
			return err
		case st.Size() == 0:
			line = append(headerLine(), line...)
		default:
			// A line a crash cut short is ended first, so that this one
			// stands on its own (the reader drops the cut one).
			last := make([]byte, 1)
			if _, err := f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
				line = append([]byte{'\n'}, line...)
			}
		}
		_, werr := f.Write(line) // one write: a line is never split
		return errors.Join(werr, f.Close())
	})
}

// locked runs fn holding the index's lock (a file of its own, never
// replaced, unlike the index).
func locked(dir string, fn func() error) error {
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	unlock, err := lockFile(f)
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}

// Catalog is the runs of a results folder as the index has them, brought
// up to date.
type Catalog struct {
	Dir string
	// Entries are the folder's readable records, oldest first (by id, as
	// record.Store.List orders them).
	Entries []*Entry
	// Damaged are the folder's files that are not readable records.
	Damaged []error
	// Read is how many records were read whole to bring the index up to
	// date (all of them when it was missing or unreadable; a damaged file,
	// read every time, is not counted).
	Read int
	// Warning says the index could not be written again (a folder this
	// user cannot write): the entries are right, the next reader pays again.
	Warning error
}

// Open reads the index of the results folder dir and checks it against
// the folder: a record it does not hold, or holds with another size or
// time, is read whole; an entry whose file is gone is dropped; the index is
// then written again under its lock. A folder that does not exist is empty.
func Open(dir string) (*Catalog, error) {
	c := &Catalog{Dir: dir}
	files, err := recordFiles(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return c, nil
		}
		return nil, fmt.Errorf("read results folder: %w", err)
	}
	indexed, clean := readIndex(dir)
	read := map[string]loaded{}
	entries, damaged, added := match(dir, files, indexed, read)
	if !clean || added > 0 || len(indexed) != len(entries)-added {
		// Again under the lock, with what was read kept: a process that
		// saved meanwhile has its line in the index re-read here.
		c.Warning = locked(dir, func() error {
			files, err := recordFiles(dir)
			if err != nil {
				return err
			}
			indexed, _ := readIndex(dir)
			entries, damaged, _ = match(dir, files, indexed, read)
			var buf bytes.Buffer
			buf.Write(headerLine())
			for _, e := range entries {
				line, err := e.line()
				if err != nil {
					return err
				}
				buf.Write(line)
			}
			return record.WriteFileAtomic(filepath.Join(dir, File), buf.Bytes())
		})
		if c.Warning != nil {
			c.Warning = fmt.Errorf("the results index %s could not be written (the runs are listed from the records): %w", filepath.Join(dir, File), c.Warning)
		}
	}
	c.Entries, c.Damaged = unique(dir, entries, damaged)
	for _, l := range read {
		if l.err == nil {
			c.Read++
		}
	}
	return c, nil
}

// recordFiles are the folder's record files by name, with their size and
// modification time.
func recordFiles(dir string) (map[string]fs.FileInfo, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make(map[string]fs.FileInfo, len(des))
	for _, d := range des {
		n := d.Name()
		if d.IsDir() || !strings.HasSuffix(n, ".json") || strings.HasPrefix(n, ".") {
			continue
		}
		info, err := d.Info()
		if err != nil {
			continue // removed since the listing
		}
		out[n] = info
	}
	return out, nil
}

// readIndex is the index's entries by file (a later line of a file wins),
// and whether the index was whole: present, of this version, every line
// readable.
func readIndex(dir string) (map[string]*Entry, bool) {
	out := map[string]*Entry{}
	data, err := os.ReadFile(filepath.Join(dir, File))
	if err != nil {
		return out, false
	}
	first, rest, _ := bytes.Cut(data, []byte{'\n'})
	if !bytes.Equal(first, bytes.TrimSuffix(headerLine(), []byte{'\n'})) {
		return out, false // another version, or other metrics: rebuilt
	}
	clean := true
	lines := 0
	// The entries keep slices of data: no line is copied.
	for len(rest) > 0 {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if len(line) == 0 {
			continue // the end of a line a crash cut short, ended by the next save
		}
		lines++
		head, vals, ok := bytes.Cut(line, []byte{'\t'})
		var e Entry
		if !ok || json.Unmarshal(head, &e) != nil || e.File == "" || crc32.ChecksumIEEE(vals) != e.Sum {
			clean = false // a line cut short by a crash: what it named is read again
			continue
		}
		e.values = vals
		out[e.File] = &e
	}
	return out, clean && lines == len(out)
}

// loaded is a record file read whole: its entry or why it is not a
// record, for the size and time it had.
type loaded struct {
	size, mtime int64
	entry       *Entry
	err         error
}

// match pairs the folder's files with the index's entries: a file whose
// entry matches its size and time keeps it; another is read whole (once:
// read keeps what was read) and added. The entries come back in id order.
func match(dir string, files map[string]fs.FileInfo, indexed map[string]*Entry, read map[string]loaded) (entries []*Entry, damaged []error, added int) {
	for name, info := range files {
		size, mtime := info.Size(), info.ModTime().UnixNano()
		if e := indexed[name]; e != nil && e.Size == size && e.ModTime == mtime {
			entries = append(entries, e)
			continue
		}
		l, ok := read[name]
		if !ok || l.size != size || l.mtime != mtime {
			l = loaded{size: size, mtime: mtime}
			var rec *record.Record
			if rec, l.err = record.Load(filepath.Join(dir, name)); l.err == nil {
				l.entry = entryOf(rec, name, info)
			}
			read[name] = l
		}
		if l.err != nil {
			damaged = append(damaged, l.err)
			continue
		}
		entries = append(entries, l.entry)
		added++
	}
	slices.SortFunc(entries, func(a, b *Entry) int { return strings.Compare(a.ID, b.ID) })
	slices.SortFunc(damaged, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return entries, damaged, added
}

// CopyError is a record file holding a run another file of the folder
// holds too (a record copied under another name): the run counts once.
type CopyError struct {
	Path, Kept, ID string
}

func (e *CopyError) Error() string {
	return fmt.Sprintf("%s holds run %s, which %s holds too: the run counts once", e.Path, e.ID, e.Kept)
}

// unique keeps one entry a run id: the file named by the id (where
// Store.Save puts it), else the first by name; each other file of that id
// joins damaged as a CopyError. The index keeps every file's entry: it
// describes files, this describes runs.
func unique(dir string, entries []*Entry, damaged []error) ([]*Entry, []error) {
	out := entries[:0:0]
	for i := 0; i < len(entries); {
		j := i + 1
		for j < len(entries) && entries[j].ID == entries[i].ID {
			j++
		}
		keep := i
		for k := i; k < j; k++ {
			if entries[k].File == entries[k].ID+".json" {
				keep = k
				break
			}
			if entries[k].File < entries[keep].File {
				keep = k
			}
		}
		out = append(out, entries[keep])
		for k := i; k < j; k++ {
			if k != keep {
				damaged = append(damaged, &CopyError{Path: filepath.Join(dir, entries[k].File), Kept: filepath.Join(dir, entries[keep].File), ID: entries[k].ID})
			}
		}
		i = j
	}
	return out, damaged
}

// Resolve finds the runs each argument names, as record.Store.ResolveAll
// does (a record file, an id, a label, the start of an id) or a label
// pattern as Select reads it, by the index, and reads whole only the
// records named.
func (c *Catalog) Resolve(refs []string) ([]record.Found, error) {
	all := c.Refs()
	out := make([]record.Found, 0, len(refs))
	for _, ref := range refs {
		if strings.HasSuffix(ref, ".json") {
			if _, err := os.Stat(ref); err == nil {
				rec, err := record.Load(ref)
				if err != nil {
					return append(out, record.Found{}), err
				}
				out = append(out, record.Found{Runs: []*record.Record{rec}})
				continue
			}
		}
		var named []*Entry
		f := record.Found{Damaged: c.Damaged}
		if strings.ContainsAny(ref, `*?[\`) {
			// A label pattern: its runs, as Select finds them.
			sel, err := c.Select([]string{ref})
			if err != nil {
				return append(out, f), err
			}
			named = sel
		} else {
			idx, note, err := record.ResolveRef(all, c.Damaged, c.Dir, ref)
			f.Note = note
			if err != nil {
				return append(out, f), err
			}
			for _, i := range idx {
				named = append(named, c.Entries[i])
			}
		}
		for _, e := range named {
			rec, err := c.Load(e)
			if err != nil {
				return append(out, f), err
			}
			f.Runs = append(f.Runs, rec)
		}
		out = append(out, f)
	}
	return out, nil
}

// OpenSides opens the results folder dir and returns each ref's runs
// (Sides), for the tools that read a finished routine's records.
func OpenSides(dir string, refs []string) ([][]*record.Record, error) {
	c, err := Open(dir)
	if err != nil {
		return nil, err
	}
	runs, _, _, err := c.Sides(refs)
	return runs, err
}

// Sides is Resolve for a comparison: each argument's runs (a side), the
// folder's damaged records, and the notes said where an argument could
// have named other runs (a label that is also the start of run ids).
func (c *Catalog) Sides(refs []string) (runs [][]*record.Record, damaged []error, notes []string, err error) {
	founds, err := c.Resolve(refs)
	for _, f := range founds {
		if f.Damaged != nil {
			damaged = f.Damaged
			break
		}
	}
	if err != nil {
		return nil, damaged, nil, err
	}
	for _, f := range founds {
		runs = append(runs, f.Runs)
		if f.Note != "" {
			notes = append(notes, f.Note)
		}
	}
	return runs, damaged, notes, nil
}

// Load reads an entry's record whole.
func (c *Catalog) Load(e *Entry) (*record.Record, error) {
	return record.Load(filepath.Join(c.Dir, e.File))
}

// PatternError is a label pattern path.Match cannot read.
type PatternError struct {
	Pattern string
	Err     error
}

func (e *PatternError) Error() string { return fmt.Sprintf("label pattern %q: %v", e.Pattern, e.Err) }
func (e *PatternError) Unwrap() error { return e.Err }

// Select is the entries the arguments name, in the folder's order, each
// once: an argument with *, ?, [ or \ is a label pattern (path.Match:
// 'master-*'), which must match a run's label; any other is a run as
// record.ResolveRef finds it (an id, a label, the start of an id). Bench
// history, export and compare's patterns select alike.
func (c *Catalog) Select(args []string) ([]*Entry, error) {
	refs := c.Refs()
	picked := make([]bool, len(c.Entries))
	for _, a := range args {
		if !strings.ContainsAny(a, `*?[\`) {
			named, _, err := record.ResolveRef(refs, c.Damaged, c.Dir, a)
			if err != nil {
				return nil, err
			}
			for _, i := range named {
				picked[i] = true
			}
			continue
		}
		if _, err := path.Match(a, ""); err != nil {
			return nil, &PatternError{Pattern: a, Err: err}
		}
		n := 0
		for i, e := range c.Entries {
			if ok, _ := path.Match(a, e.Label); ok {
				picked[i] = true
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("no saved run in %s has a label that matches %q (bench list shows them)", c.Dir, a)
		}
	}
	var out []*Entry
	for i, e := range c.Entries {
		if picked[i] {
			out = append(out, e)
		}
	}
	return out, nil
}

// Refs are the id and label of each entry.
func (c *Catalog) Refs() []record.Ref {
	out := make([]record.Ref, len(c.Entries))
	for i, e := range c.Entries {
		out[i] = record.Ref{ID: e.ID, Label: e.Label}
	}
	return out
}
