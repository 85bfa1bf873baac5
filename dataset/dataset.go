// Package dataset holds a workload's data as files, in iot-benchmark's
// data-set layout (its generateDataMode writes it, its verificationWriteMode
// reads it from FILE_PATH): schema.txt, a line "device sensor type" a
// sensor (the type as iot-benchmark's SensorType ordinal), info.txt (what
// made the files), and a folder per device holding BigBatch_0.csv: each
// batch as it is sent, a header line "Sensor,s_0,s_1,…" and then a line a
// row, "timestamp,value,value,…", text quoted. bench generate writes it
// (Write); a run with FILE_PATH replays it (Open, Set.Stream) through the
// write path instead of generating, batch for batch.
package dataset

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tsbench/tsbench/generator"
)

// SchemaFile and InfoFile are iot-benchmark's names (Constants.SCHEMA_PATH,
// INFO_PATH); DataFile is the one file of a device.
const (
	SchemaFile = "schema.txt"
	InfoFile   = "info.txt"
	DataFile   = "BigBatch_0.csv"
)

// typeCodes are iot-benchmark's SensorType ordinals.
var typeCodes = map[generator.DataType]int{
	generator.Boolean: 0, generator.Int32: 1, generator.Int64: 2, generator.Float: 3, generator.Double: 4,
	generator.Text: 5, generator.String: 6, generator.Blob: 7, generator.Timestamp: 8, generator.Date: 9,
}

// Write writes the batches of every written device of s, as g makes them
// (out-of-order rows in their sending order), under dir, which must not
// hold a data set already; info is written to info.txt. done, when not
// nil, is told the points written so far after each device.
func Write(ctx context.Context, dir string, s *generator.Schema, g *generator.Generator, info string, done func(points int64)) error {
	if _, err := os.Stat(filepath.Join(dir, SchemaFile)); err == nil {
		return fmt.Errorf("%s holds a data set already (%s): give an empty or new folder", dir, SchemaFile)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var schema strings.Builder
	for _, d := range s.Devices {
		if !d.Written {
			continue
		}
		for _, sn := range s.Sensors {
			fmt.Fprintf(&schema, "%s %s %d\n", d.Name, sn.Name, typeCodes[sn.Type])
		}
	}
	if err := os.WriteFile(filepath.Join(dir, InfoFile), []byte(info), 0o644); err != nil {
		return err
	}
	b := g.NewBatch()
	var points int64
	var line []byte
	for i := range s.Devices {
		d := &s.Devices[i]
		if !d.Written {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dir, d.Name), 0o755); err != nil {
			return err
		}
		f, err := os.Create(filepath.Join(dir, d.Name, DataFile))
		if err != nil {
			return err
		}
		w := bufio.NewWriterSize(f, 1<<20)
		header := "Sensor"
		for _, sn := range s.Sensors {
			header += "," + sn.Name
		}
		header += "\n"
		st := g.NewStream(i)
		for st.Next(b) {
			w.WriteString(header)
			for r := range b.Len() {
				line = appendRow(line[:0], b, r)
				w.Write(line)
			}
			points += b.Points()
		}
		if err := w.Flush(); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		if done != nil {
			done(points)
		}
	}
	// The schema last: a folder without it is not a data set, so an
	// interrupted write is never replayed.
	return os.WriteFile(filepath.Join(dir, SchemaFile), []byte(schema.String()), 0o644)
}

// appendRow appends row r of b as a line: its timestamp, then each value
// in the shortest text that reads back to the same bits.
func appendRow(buf []byte, b *generator.Batch, r int) []byte {
	buf = strconv.AppendInt(buf, b.Timestamps[r], 10)
	for j := range b.Columns {
		c := &b.Columns[j]
		buf = append(buf, ',')
		switch c.Sensor.Type {
		case generator.Boolean:
			buf = strconv.AppendBool(buf, c.Bools[r])
		case generator.Int32:
			buf = strconv.AppendInt(buf, int64(c.Int32s[r]), 10)
		case generator.Date:
			buf = append(buf, generator.Day(c.Int32s[r]).String()...)
		case generator.Int64, generator.Timestamp:
			buf = strconv.AppendInt(buf, c.Int64s[r], 10)
		case generator.Float:
			buf = strconv.AppendFloat(buf, float64(c.Float32s[r]), 'g', -1, 32)
		case generator.Double:
			buf = strconv.AppendFloat(buf, c.Float64s[r], 'g', -1, 64)
		default:
			// CSV's quoting, which iot-benchmark's reader (opencsv) reads.
			buf = append(buf, '"')
			buf = append(buf, strings.ReplaceAll(c.Texts[r], `"`, `""`)...)
			buf = append(buf, '"')
		}
	}
	return append(buf, '\n')
}

// Set is a data set opened for a workload's schema.
type Set struct {
	dir    string
	schema *generator.Schema
	chunks sync.Pool // read buffers (*chunk), one a client reading
}

// Open checks that dir holds a data set of s: every written device of s
// in schema.txt with s's sensors, in order, of the same types, and its
// file. The error says what differs, for a user who points FILE_PATH at
// another workload's files.
func Open(dir string, s *generator.Schema) (*Set, error) {
	data, err := os.ReadFile(filepath.Join(dir, SchemaFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s holds no data set (no %s; bench generate writes one)", dir, SchemaFile)
		}
		return nil, err
	}
	type col struct {
		name string
		code int
	}
	have := map[string][]col{}
	for n, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		code, err := strconv.Atoi(f[len(f)-1])
		if len(f) != 3 || err != nil {
			return nil, fmt.Errorf("%s line %d: %q is not \"device sensor type\"", SchemaFile, n+1, line)
		}
		have[f[0]] = append(have[f[0]], col{f[1], code})
	}
	for _, d := range s.Devices {
		if !d.Written {
			continue
		}
		cols, ok := have[d.Name]
		if !ok {
			return nil, fmt.Errorf("the data set in %s has no device %s, which the workload writes: it is another workload's (bench generate with this configuration writes this one's)", dir, d.Name)
		}
		if len(cols) != len(s.Sensors) {
			return nil, fmt.Errorf("the data set in %s gives device %s %d sensors, the workload %d", dir, d.Name, len(cols), len(s.Sensors))
		}
		for j, sn := range s.Sensors {
			if cols[j].name != sn.Name || cols[j].code != typeCodes[sn.Type] {
				return nil, fmt.Errorf("the data set in %s gives device %s sensor %d as %s of type %d, the workload as %s of type %d (%s)", dir, d.Name, j+1, cols[j].name, cols[j].code, sn.Name, typeCodes[sn.Type], sn.Type)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, d.Name, DataFile)); err != nil {
			return nil, fmt.Errorf("the data set in %s: device %s: %w", dir, d.Name, err)
		}
	}
	return &Set{dir: dir, schema: s}, nil
}

// Stream is the batches of one device, read from its file a batch at a
// time: the file is opened for each batch and closed after it, so that a
// workload of thousands of devices holds no file open between batches
// (an open file each would exceed a process's usual limit of 1,024), and
// the read buffer comes from the set's pool, so memory grows with the
// clients, not with the devices.
type Stream struct {
	set    *Set
	dev    *generator.Device
	path   string
	offset int64 // where the next batch's header starts
	line   int   // lines read so far, for errors
	fields []string
	err    error
}

// Stream opens device d's batches (d its index in the schema).
func (s *Set) Stream(d int) (*Stream, error) {
	dev := &s.schema.Devices[d]
	path := filepath.Join(s.dir, dev.Name, DataFile)
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	return &Stream{set: s, dev: dev, path: path, fields: make([]string, len(s.schema.Sensors)+1)}, nil
}

// chunk is a read buffer of the set's pool.
type chunk struct{ b []byte }

// Next fills b with the next batch and reports whether there was one; at
// the end, or at a line it cannot read (Err then says which), it stops.
func (st *Stream) Next(b *generator.Batch) bool {
	if st.err != nil {
		return false
	}
	b.Device = st.dev
	b.Rows = b.Rows[:0]
	b.Timestamps = b.Timestamps[:0]
	for j := range b.Columns {
		c := &b.Columns[j]
		c.Bools, c.Int32s, c.Int64s, c.Float32s, c.Float64s, c.Texts = c.Bools[:0], c.Int32s[:0], c.Int64s[:0], c.Float32s[:0], c.Float64s[:0], c.Texts[:0]
	}
	ck, _ := st.set.chunks.Get().(*chunk)
	if ck == nil {
		ck = &chunk{b: make([]byte, 64<<10)}
	}
	defer st.set.chunks.Put(ck)
	data, eof, err := st.readBatch(ck)
	if err != nil {
		st.err = fmt.Errorf("%s: %w", st.path, err)
		return false
	}
	if len(data) == 0 {
		st.err = io.EOF
		return false
	}
	st.offset += int64(len(data))
	header := false
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		var line []byte
		if i < 0 {
			line, data = data, nil
		} else {
			line, data = data[:i], data[i+1:]
		}
		st.line++
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			continue
		}
		if bytes.HasPrefix(line, []byte("Sensor,")) {
			if header {
				st.err = fmt.Errorf("%s line %d: two headers in one batch", st.path, st.line)
				return false
			}
			if err := st.checkHeader(string(line), b); err != nil {
				st.err = err
				return false
			}
			header = true
			continue
		}
		if !header {
			st.err = fmt.Errorf("%s line %d: a row before the first \"Sensor,…\" header", st.path, st.line)
			return false
		}
		// One string a line; the fields are pieces of it.
		if err := split(string(line), st.fields); err != nil {
			st.err = fmt.Errorf("%s line %d: %w", st.path, st.line, err)
			return false
		}
		if err := appendValues(b, st.fields); err != nil {
			st.err = fmt.Errorf("%s line %d: %w", st.path, st.line, err)
			return false
		}
	}
	if eof && b.Len() == 0 {
		st.err = io.EOF
		return false
	}
	return true
}

// readBatch reads, from the stream's offset, the bytes of one batch: its
// header and rows, up to the next header or the end of the file (eof).
func (st *Stream) readBatch(ck *chunk) (data []byte, eof bool, err error) {
	f, err := os.Open(st.path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	for {
		n, err := f.ReadAt(ck.b, st.offset)
		if err != nil && err != io.EOF {
			return nil, false, err
		}
		data = ck.b[:n]
		// The next header after this batch's own ends it.
		if i := bytes.Index(data[min(1, len(data)):], []byte("\nSensor,")); i >= 0 {
			return data[:i+2], false, nil
		}
		if err == io.EOF || n < len(ck.b) {
			return data, true, nil
		}
		ck.b = make([]byte, 2*len(ck.b)) // a batch longer than the buffer
	}
}

// split cuts a CSV line into exactly len(fields) fields, unquoting quoted
// ones ("" is a quote).
func split(line string, fields []string) error {
	for k := range fields {
		if k > 0 {
			if line == "" || line[0] != ',' {
				return fmt.Errorf("%d fields, want %d", k, len(fields))
			}
			line = line[1:]
		}
		if line != "" && line[0] == '"' {
			end, esc := 1, false
			for {
				i := strings.IndexByte(line[end:], '"')
				if i < 0 {
					return fmt.Errorf("field %d: a quote that does not close", k+1)
				}
				end += i + 1
				if end < len(line) && line[end] == '"' {
					esc, end = true, end+1
					continue
				}
				break
			}
			v := line[1 : end-1]
			if esc {
				v = strings.ReplaceAll(v, `""`, `"`)
			}
			fields[k], line = v, line[end:]
			continue
		}
		i := strings.IndexByte(line, ',')
		if i < 0 {
			i = len(line)
		}
		fields[k], line = line[:i], line[i:]
	}
	if line != "" {
		return fmt.Errorf("more than %d fields", len(fields))
	}
	return nil
}

func (st *Stream) checkHeader(line string, b *generator.Batch) error {
	names := strings.Split(line, ",")[1:]
	if len(names) != len(b.Columns) {
		return fmt.Errorf("%s line %d: %d sensors in the header, the schema has %d", st.path, st.line, len(names), len(b.Columns))
	}
	for j := range b.Columns {
		if names[j] != b.Columns[j].Sensor.Name {
			return fmt.Errorf("%s line %d: column %d is %s, the schema's sensor is %s", st.path, st.line, j+2, names[j], b.Columns[j].Sensor.Name)
		}
	}
	return nil
}

// Err is what stopped the stream before its file's end; nil at the end.
func (st *Stream) Err() error {
	if st.err == io.EOF {
		return nil
	}
	return st.err
}

// appendValues appends one row's timestamp and values to b.
func appendValues(b *generator.Batch, rec []string) error {
	ts, err := strconv.ParseInt(rec[0], 10, 64)
	if err != nil {
		return fmt.Errorf("timestamp %q: %w", rec[0], err)
	}
	b.Timestamps = append(b.Timestamps, ts)
	for j := range b.Columns {
		c := &b.Columns[j]
		v := rec[j+1]
		var err error
		switch c.Sensor.Type {
		case generator.Boolean:
			var x bool
			x, err = strconv.ParseBool(v)
			c.Bools = append(c.Bools, x)
		case generator.Int32:
			var x int64
			x, err = strconv.ParseInt(v, 10, 32)
			c.Int32s = append(c.Int32s, int32(x))
		case generator.Date:
			var t time.Time
			t, err = time.Parse(time.DateOnly, v)
			c.Int32s = append(c.Int32s, int32(t.Sub(time.Unix(0, 0)).Hours()/24))
		case generator.Int64, generator.Timestamp:
			var x int64
			x, err = strconv.ParseInt(v, 10, 64)
			c.Int64s = append(c.Int64s, x)
		case generator.Float:
			var x float64
			x, err = strconv.ParseFloat(v, 32)
			c.Float32s = append(c.Float32s, float32(x))
		case generator.Double:
			var x float64
			x, err = strconv.ParseFloat(v, 64)
			c.Float64s = append(c.Float64s, x)
		default:
			c.Texts = append(c.Texts, v)
		}
		if err != nil {
			return fmt.Errorf("%s value %q: %w", c.Sensor.Name, v, err)
		}
	}
	return nil
}

// Rows counts the rows device d's file holds (its lines but the batches'
// headers and empty ones), reading the file once.
func (s *Set) Rows(d int) (int64, error) {
	f, err := os.Open(filepath.Join(s.dir, s.schema.Devices[d].Name, DataFile))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	var n int64
	for sc.Scan() {
		if line := sc.Bytes(); len(bytes.TrimSpace(line)) > 0 && !bytes.HasPrefix(line, []byte("Sensor,")) {
			n++
		}
	}
	return n, sc.Err()
}

// FingerprintLine is how info.txt names the workload whose generator made
// the files (bench generate writes it): "fingerprint: <workload fingerprint>".
const FingerprintLine = "fingerprint: "

// Identity says whether the files are the data of the workload of
// fingerprint: "" when info.txt names it (bench generate made them with
// that workload, so they are the points a run generates); otherwise an id
// of the files (a hash of schema.txt and each device file's size), which
// a run of them records beside its workload, so that it compares only
// with runs of the same files.
func (s *Set) Identity(fingerprint string) (string, error) {
	if info, err := os.ReadFile(filepath.Join(s.dir, InfoFile)); err == nil {
		for _, line := range strings.Split(string(info), "\n") {
			if strings.TrimSpace(line) == FingerprintLine+fingerprint {
				return "", nil
			}
		}
	}
	h := sha256.New()
	schema, err := os.ReadFile(filepath.Join(s.dir, SchemaFile))
	if err != nil {
		return "", err
	}
	h.Write(schema)
	for _, d := range s.schema.Devices {
		if !d.Written {
			continue
		}
		fi, err := os.Stat(filepath.Join(s.dir, d.Name, DataFile))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", d.Name, fi.Size())
	}
	return fmt.Sprintf("sha256:%x", h.Sum(nil)[:12]), nil
}
