package corpus

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
)

// Docs is one bulk's documents: the lines for Index, valid until the next
// call of Part.Next.
type Docs struct {
	Index string
	Docs  [][]byte
	buf   []byte
	ends  []int
}

// Part is client k of n's share of every file of the track, read a bulk
// at a time: the documents whose lines start in the k-th n-th of each
// file's bytes (up to the file's End), so that the n parts together send
// every document once, in the file's order within a part, as Rally splits
// a corpus over its clients.
type Part struct {
	t      *Track
	k, n   int
	file   int // the file being read, -1 before the first
	fh     *os.File
	r      *bufio.Reader
	off    int64 // the offset of the next line's start
	stop   int64 // lines starting at or after it belong to the next part
	err    error
	closed bool
}

// Part opens client k of n's share.
func (t *Track) Part(k, n int) *Part {
	return &Part{t: t, k: k, n: n, file: -1}
}

// Next fills d with up to size documents of one index; false at the end of
// the part or at an error (Err).
func (p *Part) Next(d *Docs, size int) bool {
	d.Docs, d.buf, d.ends = d.Docs[:0], d.buf[:0], d.ends[:0]
	for p.err == nil && !p.closed {
		if p.r == nil && !p.open() {
			return false
		}
		d.Index = p.t.Files[p.file].Index
		for len(d.ends) < size && p.off < p.stop {
			line, err := p.line(d)
			if err != nil {
				p.err = err
				return false
			}
			if line {
				d.ends = append(d.ends, len(d.buf))
			}
		}
		if p.off >= p.stop {
			p.fh.Close()
			p.r = nil
		}
		if len(d.ends) > 0 {
			start := 0
			for _, e := range d.ends {
				d.Docs = append(d.Docs, d.buf[start:e])
				start = e
			}
			return true
		}
	}
	return false
}

// line appends the next line (without its newline) to d.buf and says
// whether it was a document (blank lines are not).
func (p *Part) line(d *Docs) (bool, error) {
	start := len(d.buf)
	for {
		chunk, err := p.r.ReadSlice('\n')
		p.off += int64(len(chunk))
		d.buf = append(d.buf, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && err != io.EOF {
			return false, fmt.Errorf("reading %s: %w", p.t.Files[p.file].Path, err)
		}
		if err == io.EOF {
			p.off = p.stop // the file's last line
		}
		break
	}
	d.buf = bytes.TrimRight(d.buf, "\r\n")
	if len(bytes.TrimSpace(d.buf[start:])) == 0 {
		d.buf = d.buf[:start]
		return false, nil
	}
	return true, nil
}

// open moves to the next file with lines in this part and seeks to the
// part's first line; false when there is no file left.
func (p *Part) open() bool {
	for p.file+1 < len(p.t.Files) {
		p.file++
		f := p.t.Files[p.file]
		if f.Path == "" {
			p.err = errNotPrepared
			return false
		}
		from := f.End * int64(p.k) / int64(p.n)
		p.stop = f.End * int64(p.k+1) / int64(p.n)
		if from >= p.stop {
			continue
		}
		fh, err := os.Open(f.Path)
		if err != nil {
			p.err = fmt.Errorf("cannot read the documents: %w", err)
			return false
		}
		// The part's first line is the first that starts at or after
		// from: read from the byte before it and skip the rest of the line
		// that byte is in.
		seek := max(from-1, 0)
		p.fh, p.off = fh, seek
		if _, err := fh.Seek(seek, io.SeekStart); err != nil {
			fh.Close()
			p.err = err
			return false
		}
		p.r = bufio.NewReaderSize(fh, 256<<10)
		if from > 0 {
			skip, err := p.r.ReadSlice('\n')
			for err == bufio.ErrBufferFull {
				p.off += int64(len(skip))
				skip, err = p.r.ReadSlice('\n')
			}
			p.off += int64(len(skip))
			if err != nil {
				fh.Close()
				p.r = nil
				continue // no line starts in this part
			}
		}
		if p.off >= p.stop {
			fh.Close()
			p.r = nil
			continue
		}
		return true
	}
	p.closed = true
	return false
}

// Err is what stopped the part before its end.
func (p *Part) Err() error { return p.err }

// Close releases the file being read.
func (p *Part) Close() {
	if p.r != nil {
		p.fh.Close()
		p.r = nil
	}
	p.closed = true
}
