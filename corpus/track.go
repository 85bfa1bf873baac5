// Package corpus is a document database's own data: a Rally track's
// indices, ingest pipelines and corpora, or a plain file of documents, a
// JSON document a line. Load reads what the track declares (never its
// documents); Prepare makes each documents file ready to read as Rally
// does, a compressed one decompressed once beside it; Part streams a
// client's share of a file, a bulk of lines at a time, never the file
// whole. Jinja templating and the parts of a track tsbench does not run
// are refused or named, never guessed at.
package corpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Track is what a run ingests: its indices, the pipelines the track puts,
// its documents files, and the parameters of its bulk task.
type Track struct {
	// Name is the track's (its folder's name), or the documents file's.
	Name string
	// Dir is the folder the track's relative paths start from.
	Dir      string
	Indices  []Index
	Pipeline []Pipeline
	Files    []*File
	// Bulk is the challenge's bulk task; zero values where it names none.
	Bulk Bulk
	// Skipped names the parts of the track a run does not do (operations
	// other than the bulk task and the steps tsbench has of its own), for
	// a note.
	Skipped []string
}

// Index is an index the track creates, with its body (settings and
// mappings; nil: the server's defaults).
type Index struct {
	Name string
	Body []byte
}

// Pipeline is an ingest pipeline a put-pipeline operation creates.
type Pipeline struct {
	ID   string
	Body []byte
}

// Bulk is a bulk task's parameters, as the track gives them.
type Bulk struct {
	Task       string
	BulkSize   int
	Clients    int
	Pipeline   string
	Percentage float64 // ingest-percentage, 100 when not given
	Corpora    []string
}

// File is one documents file of a corpus.
type File struct {
	// Source is the file as the track names it, found in Dir (or in the
	// corpus's folder below it); Path is the plain file a run reads, set
	// by Prepare (Source itself when it is not compressed).
	Source string
	Path   string
	Corpus string
	Index  string
	// Documents is the document count the track declares (0: not
	// declared, Prepare counts them); Bytes the declared uncompressed size.
	Documents int64
	Bytes     int64
	// Ingest is how many of the file's documents a run sends (the bulk
	// task's ingest-percentage of them) and End the byte after the last of
	// them; both set by Prepare.
	Ingest int64
	End    int64
}

// IsTrack says whether path names a track (a folder, or a file named
// track.json) rather than a file of documents.
func IsTrack(path string) bool {
	if filepath.Base(path) == "track.json" {
		return true
	}
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// FromDocuments is a track of one documents file for one index, whose
// body (settings and mappings) is in bodyFile, or none when it is "".
func FromDocuments(path, index, bodyFile string) (*Track, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("cannot read the documents file: %w", err)
	}
	t := &Track{Name: strings.TrimSuffix(filepath.Base(path), compressedExt(path)), Dir: filepath.Dir(path), Bulk: Bulk{Percentage: 100}}
	if compressedExt(path) == "" {
		// A compressed file is checked once Prepare has decompressed it.
		if err := firstDocument(path, false); err != nil {
			return nil, err
		}
	}
	ix := Index{Name: index}
	if bodyFile != "" {
		body, err := readJSON(bodyFile)
		if err != nil {
			return nil, &BodyError{Err: err}
		}
		if !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
			return nil, &BodyError{Err: fmt.Errorf("%s is not a JSON object", bodyFile)}
		}
		ix.Body = body
	}
	t.Indices = []Index{ix}
	t.Files = []*File{{Source: path, Corpus: t.Name, Index: index}}
	return t, nil
}

// BodyError is an index body (TRACK_INDEX_BODY) that cannot be used: a
// fault of that file, not of the documents'.
type BodyError struct{ Err error }

func (e *BodyError) Error() string { return e.Err.Error() }
func (e *BodyError) Unwrap() error { return e.Err }

// firstDocument refuses a documents file whose first document is not a
// JSON object: a file of something else, which a run would send as one
// "document" after another for the server to refuse. A file with no
// document is refused unless empty is allowed (one of a track's files).
func firstDocument(path string, empty bool) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("cannot read the documents: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if doc := bytes.TrimSpace(line); len(doc) > 0 {
			if doc[0] != '{' || !json.Valid(doc) {
				return fmt.Errorf("%s: line %d is not a JSON object (a documents file holds one a line, as Rally's do)", path, n)
			}
			return nil
		}
		if err == io.EOF {
			if empty {
				return nil
			}
			return fmt.Errorf("%s holds no documents", path)
		}
		if err != nil {
			return fmt.Errorf("cannot read the documents: %w", err)
		}
	}
}

// rawTrack is track.json as far as tsbench reads it.
type rawTrack struct {
	Indices []struct {
		Name string `json:"name"`
		Body string `json:"body"`
	} `json:"indices"`
	Templates          json.RawMessage `json:"templates"`
	ComposableTemplate json.RawMessage `json:"composable-templates"`
	ComponentTemplates json.RawMessage `json:"component-templates"`
	DataStreams        json.RawMessage `json:"data-streams"`
	Corpora            []struct {
		Name        string `json:"name"`
		BaseURL     string `json:"base-url"`
		TargetIndex string `json:"target-index"`
		Documents   []struct {
			SourceFile   string `json:"source-file"`
			Count        int64  `json:"document-count"`
			Uncompressed int64  `json:"uncompressed-bytes"`
			TargetIndex  string `json:"target-index"`
			ActionMeta   bool   `json:"includes-action-and-meta-data"`
			SourceFormat string `json:"source-format"`
			TargetStream string `json:"target-data-stream"`
		} `json:"documents"`
	} `json:"corpora"`
	Operations []json.RawMessage `json:"operations"`
	Schedule   []json.RawMessage `json:"schedule"`
	Challenge  *rawChallenge     `json:"challenge"`
	Challenges []rawChallenge    `json:"challenges"`
}

type rawChallenge struct {
	Name     string            `json:"name"`
	Default  bool              `json:"default"`
	Schedule []json.RawMessage `json:"schedule"`
}

// operation is an operation's fields tsbench reads; params is all of it.
type operation struct {
	Name       string          `json:"name"`
	Type       string          `json:"operation-type"`
	BulkSize   json.Number     `json:"bulk-size"`
	Pipeline   string          `json:"pipeline"`
	Percentage json.Number     `json:"ingest-percentage"`
	Corpora    json.RawMessage `json:"corpora"`
	ID         string          `json:"id"`
	Body       json.RawMessage `json:"body"`
}

type task struct {
	Operation json.RawMessage `json:"operation"`
	Name      string          `json:"name"`
	Clients   int             `json:"clients"`
	Parallel  *struct {
		Tasks []json.RawMessage `json:"tasks"`
	} `json:"parallel"`
}

// Load reads a track: a folder holding track.json, or track.json itself.
// challenge names the challenge whose schedule is read ("": the track's
// default, or its only one).
func Load(path, challenge string) (*Track, error) {
	file := path
	if filepath.Base(path) != "track.json" {
		file = filepath.Join(path, "track.json")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("cannot read the track: %w", err)
	}
	if err := noTemplating(file, data); err != nil {
		return nil, err
	}
	var raw rawTrack
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s is not a track's JSON: %w", file, err)
	}
	dir := filepath.Dir(file)
	t := &Track{Name: filepath.Base(dir), Dir: dir, Bulk: Bulk{Percentage: 100}}
	for _, part := range []struct {
		name string
		raw  json.RawMessage
	}{{"templates", raw.Templates}, {"composable-templates", raw.ComposableTemplate}, {"component-templates", raw.ComponentTemplates}, {"data-streams", raw.DataStreams}} {
		if len(bytes.TrimSpace(part.raw)) > 0 && !bytes.Equal(bytes.TrimSpace(part.raw), []byte("[]")) && !bytes.Equal(bytes.TrimSpace(part.raw), []byte("null")) {
			return nil, fmt.Errorf("%s declares %s, which tsbench does not create: a track for tsbench declares its indices (\"indices\" with a body file each)", file, part.name)
		}
	}
	if len(raw.Indices) == 0 {
		return nil, fmt.Errorf("%s declares no index (\"indices\")", file)
	}
	for _, ix := range raw.Indices {
		if ix.Name == "" {
			return nil, fmt.Errorf("%s: an index has no name", file)
		}
		out := Index{Name: ix.Name}
		if ix.Body != "" {
			body, err := readJSON(filepath.Join(dir, ix.Body))
			if err != nil {
				return nil, fmt.Errorf("index %s: %w", ix.Name, err)
			}
			if err := noTemplating(filepath.Join(dir, ix.Body), body); err != nil {
				return nil, err
			}
			out.Body = body
		}
		t.Indices = append(t.Indices, out)
	}
	named := map[string]operation{}
	for _, o := range raw.Operations {
		var op operation
		if err := decode(o, &op); err != nil {
			return nil, fmt.Errorf("%s: an operation: %w", file, err)
		}
		named[op.Name] = op
	}
	schedule, err := pickSchedule(&raw, challenge)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if err := t.readSchedule(schedule, named); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if t.Bulk.Task == "" {
		return nil, fmt.Errorf("%s: the schedule has no bulk task, and ingesting the corpus is what tsbench does with a track", file)
	}
	for _, c := range raw.Corpora {
		if len(t.Bulk.Corpora) > 0 && !slices.Contains(t.Bulk.Corpora, c.Name) {
			continue
		}
		for _, d := range c.Documents {
			switch {
			case d.SourceFile == "":
				return nil, fmt.Errorf("%s: a document file of corpus %s has no source-file", file, c.Name)
			case d.ActionMeta:
				return nil, fmt.Errorf("%s: %s includes the action and meta-data lines (includes-action-and-meta-data), which tsbench does not read: it writes each document's index action itself", file, d.SourceFile)
			case d.SourceFormat != "" && d.SourceFormat != "bulk":
				return nil, fmt.Errorf("%s: %s has source-format %q; tsbench reads bulk (a document a line)", file, d.SourceFile, d.SourceFormat)
			case d.TargetStream != "":
				return nil, fmt.Errorf("%s: %s targets a data stream, which tsbench does not create", file, d.SourceFile)
			}
			index := d.TargetIndex
			if index == "" {
				index = c.TargetIndex
			}
			if index == "" && len(t.Indices) == 1 {
				index = t.Indices[0].Name
			}
			if !slices.ContainsFunc(t.Indices, func(ix Index) bool { return ix.Name == index }) {
				return nil, fmt.Errorf("%s: %s goes to index %q, which the track does not declare", file, d.SourceFile, index)
			}
			src, err := find(dir, c.Name, d.SourceFile, c.BaseURL)
			if err != nil {
				return nil, err
			}
			t.Files = append(t.Files, &File{Source: src, Corpus: c.Name, Index: index, Documents: d.Count, Bytes: d.Uncompressed})
		}
	}
	if len(t.Files) == 0 {
		return nil, fmt.Errorf("%s: no corpus with documents for the bulk task %s", file, t.Bulk.Task)
	}
	return t, nil
}

// noTemplating refuses a file that uses Jinja, which tsbench does not render.
func noTemplating(file string, data []byte) error {
	for i, line := range bytes.Split(data, []byte("\n")) {
		if bytes.Contains(line, []byte("{{")) || bytes.Contains(line, []byte("{%")) {
			return fmt.Errorf("%s uses Jinja templating (line %d: %s), which tsbench does not render: give it the track as plain JSON, the templates filled in", file, i+1, strings.TrimSpace(string(line)))
		}
	}
	return nil
}

func readJSON(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	if !json.Valid(data) {
		return nil, fmt.Errorf("%s is not JSON", path)
	}
	return data, nil
}

func decode(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

// find is a documents file's path: in the track's folder, or in a folder
// named after the corpus in it (Rally's data folder's layout).
func find(dir, corpus, source, baseURL string) (string, error) {
	var tried []string
	for _, p := range []string{filepath.Join(dir, source), filepath.Join(dir, corpus, source)} {
		plain := strings.TrimSuffix(p, compressedExt(p))
		for _, q := range []string{p, plain} {
			if _, err := os.Stat(q); err == nil {
				return p, nil
			}
		}
		tried = append(tried, p)
	}
	where := ""
	if baseURL != "" {
		where = " (the track fetches it from " + baseURL + "; tsbench fetches nothing)"
	}
	return "", fmt.Errorf("documents file %s is in neither %s%s", source, strings.Join(tried, " nor "), where)
}

// pickSchedule is the chosen challenge's schedule.
func pickSchedule(raw *rawTrack, name string) ([]json.RawMessage, error) {
	all := raw.Challenges
	if raw.Challenge != nil {
		all = append(all, *raw.Challenge)
	}
	if len(all) == 0 {
		if name != "" {
			return nil, fmt.Errorf("has no challenge %q: it has a schedule and no challenges", name)
		}
		return raw.Schedule, nil
	}
	var names []string
	for _, c := range all {
		names = append(names, c.Name)
		if name == "" && (c.Default || len(all) == 1) || name != "" && c.Name == name {
			return c.Schedule, nil
		}
	}
	if name == "" {
		return nil, fmt.Errorf("has %d challenges and none is the default: choose one of %s", len(all), strings.Join(names, ", "))
	}
	return nil, fmt.Errorf("has no challenge %q; it has %s", name, strings.Join(names, ", "))
}

// ownSteps are operations whose work a run does as steps of its own
// (cleanup, create schema, flush), so they are not named as skipped.
var ownSteps = map[string]bool{"delete-index": true, "create-index": true, "cluster-health": true, "refresh": true, "put-pipeline": true, "delete-pipeline": true, "wait-for-recovery": true}

// readSchedule finds the bulk task and the pipelines the schedule puts.
func (t *Track) readSchedule(schedule []json.RawMessage, named map[string]operation) error {
	for _, raw := range schedule {
		var tk task
		if err := decode(raw, &tk); err != nil {
			return fmt.Errorf("a task of the schedule: %w", err)
		}
		if tk.Parallel != nil {
			if err := t.readSchedule(tk.Parallel.Tasks, named); err != nil {
				return err
			}
			continue
		}
		var op operation
		var ref string
		if json.Unmarshal(tk.Operation, &ref) == nil {
			o, ok := named[ref]
			if !ok {
				return fmt.Errorf("the schedule names operation %q, which \"operations\" does not define", ref)
			}
			op = o
		} else if err := decode(tk.Operation, &op); err != nil {
			return fmt.Errorf("a task's operation: %w", err)
		}
		name := tk.Name
		if name == "" {
			name = op.Name
		}
		if name == "" {
			name = op.Type
		}
		switch {
		case op.Type == "bulk" && t.Bulk.Task == "":
			b := Bulk{Task: name, Clients: tk.Clients, Pipeline: op.Pipeline, Percentage: 100}
			if op.BulkSize != "" {
				n, err := op.BulkSize.Int64()
				if err != nil || n < 1 {
					return fmt.Errorf("bulk task %s: bulk-size %s is not a positive whole number", name, op.BulkSize)
				}
				b.BulkSize = int(n)
			}
			if op.Percentage != "" {
				p, err := op.Percentage.Float64()
				if err != nil || !(p > 0 && p <= 100) {
					return fmt.Errorf("bulk task %s: ingest-percentage %s is not in (0, 100]", name, op.Percentage)
				}
				b.Percentage = p
			}
			if len(op.Corpora) > 0 {
				var one string
				if json.Unmarshal(op.Corpora, &one) == nil {
					b.Corpora = []string{one}
				} else if err := json.Unmarshal(op.Corpora, &b.Corpora); err != nil {
					return fmt.Errorf("bulk task %s: corpora is neither a name nor a list of names", name)
				}
			}
			t.Bulk = b
		case op.Type == "put-pipeline":
			if op.ID == "" || len(op.Body) == 0 {
				return fmt.Errorf("put-pipeline task %s needs an id and a body", name)
			}
			t.Pipeline = append(t.Pipeline, Pipeline{ID: op.ID, Body: op.Body})
		case op.Type == "bulk":
			t.Skipped = append(t.Skipped, name+" (a second bulk task)")
		case !ownSteps[op.Type]:
			t.Skipped = append(t.Skipped, name+" ("+op.Type+")")
		}
	}
	return nil
}

// IndexNames are the track's indices' names.
func (t *Track) IndexNames() []string {
	var out []string
	for _, ix := range t.Indices {
		out = append(out, ix.Name)
	}
	return out
}

// Documents is how many documents a run sends (after Prepare).
func (t *Track) Documents() int64 {
	var n int64
	for _, f := range t.Files {
		n += f.Ingest
	}
	return n
}

// errNotPrepared guards the readers of a track Prepare has not run on.
var errNotPrepared = errors.New("the track's files are not prepared (corpus.Prepare)")
