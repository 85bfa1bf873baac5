package runner

import (
	"fmt"
	"sync"

	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/dataset"
	"github.com/tsbench/tsbench/generator"
)

// DataSetKey is the record's pseudo key of FILE_PATH's files when they are
// not the workload's generated points (Result.DataSet).
const DataSetKey = "DATA_SET"

// batches is where a device's batches come from: the generator, or the
// device's file of a data set (FILE_PATH).
type batches interface {
	Next(b *generator.Batch) bool
}

// openData opens FILE_PATH's data set for the plan's schema, and says
// whether its files are the workload's generated points (bench generate
// with this workload) or other data, which the record then names.
func (p *Plan) openData() error {
	c := p.Config
	if c.FilePath == "" {
		return nil
	}
	set, err := dataset.Open(c.FilePath, p.Schema)
	if err != nil {
		return &config.Error{Key: "FILE_PATH", Value: c.FilePath, Msg: err.Error()}
	}
	id, err := set.Identity(config.Fingerprint(c.Values(), c.WorkloadKeys()))
	if err != nil {
		return &config.Error{Key: "FILE_PATH", Value: c.FilePath, Msg: err.Error()}
	}
	if id != "" {
		// Other data than this workload's: the files must hold what the
		// run announces, or it sends part of it and fails at VERIFY.
		if err := p.enoughRows(set); err != nil {
			return err
		}
	}
	p.Data, p.DataSet = set, id
	p.dataErr = &dataErr{}
	how := "bench generate's files of this workload: the points it generates"
	if id != "" {
		how = fmt.Sprintf("files of other data than this workload's generator makes (%s=%s in the fingerprint): the run compares only with runs of the same files", DataSetKey, id)
	}
	p.dataNote = fmt.Sprintf("the writes send the data set FILE_PATH=%s, %s", c.FilePath, how)
	p.Notes = append(p.Notes, p.dataNote)
	return nil
}

// enoughRows refuses a data set whose device files hold fewer rows than
// the run writes a device (LOOP's writes × BATCH_SIZE_PER_WRITE).
func (p *Plan) enoughRows(set *dataset.Set) error {
	c := p.Config
	for d, dev := range p.Schema.Devices {
		if !dev.Written {
			continue
		}
		n, err := set.Rows(d)
		if err != nil {
			return &config.Error{Key: "FILE_PATH", Value: c.FilePath, Msg: fmt.Sprintf("device %s: %v", dev.Name, err)}
		}
		if n < p.RowsPerDevice {
			return &config.Error{Key: "FILE_PATH", Value: c.FilePath,
				Msg:   fmt.Sprintf("holds %d rows of device %s, and the run writes %d a device (%d writes of BATCH_SIZE_PER_WRITE=%d)", n, dev.Name, p.RowsPerDevice, p.Counts[Write], c.BatchSize),
				Valid: fmt.Sprintf("a LOOP whose writes fit the files' %d rows a device, or a data set written by bench generate with this configuration", n)}
		}
	}
	return nil
}

// dataErr is the first file of a data set that could not be read: the
// ingest stops at it and the run says so.
type dataErr struct {
	once sync.Once
	err  error
}

func (e *dataErr) set(err error) { e.once.Do(func() { e.err = err }) }

// stream is device d's batches.
func (p *Plan) stream(d int) batches {
	if p.Data == nil {
		return p.Generator.NewStream(d)
	}
	st, err := p.Data.Stream(d)
	if err != nil {
		p.dataErr.set(err)
		return none{}
	}
	return replay{st, p.dataErr}
}

// replay reads a device's file and keeps what stopped it.
type replay struct {
	*dataset.Stream
	errs *dataErr
}

func (r replay) Next(b *generator.Batch) bool {
	if r.Stream.Next(b) {
		return true
	}
	if err := r.Err(); err != nil {
		r.errs.set(err)
	}
	return false
}

type none struct{}

func (none) Next(*generator.Batch) bool { return false }

// dataFailed is the data set's read error after a phase, if any.
func (p *Plan) dataFailed() error {
	if p.dataErr == nil || p.dataErr.err == nil {
		return nil
	}
	if p.Track != nil {
		return fmt.Errorf("TRACK_PATH=%s: %w", p.Config.TrackPath, p.dataErr.err)
	}
	return fmt.Errorf("FILE_PATH=%s: %w", p.Config.FilePath, p.dataErr.err)
}
