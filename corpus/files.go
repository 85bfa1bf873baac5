package corpus

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// compressedExt is the compression suffix of a file's name that Prepare
// reads, or "".
func compressedExt(path string) string {
	for _, ext := range []string{".bz2", ".gz"} {
		if strings.HasSuffix(path, ext) {
			return ext
		}
	}
	return ""
}

// unsupported are the compressions Rally knows that tsbench does not read.
var unsupported = []string{".zst", ".zip", ".xz", ".tar", ".tgz"}

// Prepare makes every documents file ready to read: a compressed one is
// decompressed beside it, once (the plain file kept, as Rally keeps it,
// and used again while its size is the track's uncompressed-bytes, or
// while it is newer than the archive where the track gives no size), then
// its documents are counted where the track does not say how many there
// are or only a share of them is sent. say is told what takes time.
func (t *Track) Prepare(ctx context.Context, say func(string)) error {
	for _, f := range t.Files {
		for _, ext := range unsupported {
			if strings.HasSuffix(f.Source, ext) {
				return fmt.Errorf("%s: tsbench reads documents plain, .bz2 or .gz, not %s: decompress it first", f.Source, ext)
			}
		}
		f.Path = f.Source
		if ext := compressedExt(f.Source); ext != "" {
			f.Path = strings.TrimSuffix(f.Source, ext)
			if !fresh(f) {
				say(fmt.Sprintf("decompressing %s", f.Source))
				if err := decompress(ctx, f.Source, f.Path, ext); err != nil {
					return err
				}
			}
		}
		st, err := os.Stat(f.Path)
		if err != nil {
			return fmt.Errorf("cannot read the documents: %w", err)
		}
		if f.Bytes > 0 && st.Size() != f.Bytes {
			return fmt.Errorf("%s holds %d bytes; the track says %d (uncompressed-bytes): a partial or other file", f.Path, st.Size(), f.Bytes)
		}
		if err := firstDocument(f.Path, true); err != nil {
			return err
		}
		f.End, f.Ingest = st.Size(), f.Documents
		if f.Documents > 0 && t.Bulk.Percentage == 100 {
			continue
		}
		say(fmt.Sprintf("counting the documents of %s", f.Path))
		total, _, err := lines(ctx, f.Path, math.MaxInt64)
		if err != nil {
			return err
		}
		if f.Documents > 0 && total != f.Documents {
			return fmt.Errorf("%s holds %d documents; the track says %d (document-count)", f.Path, total, f.Documents)
		}
		f.Documents = total
		f.Ingest = int64(math.Ceil(float64(total) * t.Bulk.Percentage / 100))
		if f.Ingest < total {
			if _, f.End, err = lines(ctx, f.Path, f.Ingest); err != nil {
				return err
			}
		}
	}
	return nil
}

// fresh says whether a compressed file's plain copy is there and whole.
func fresh(f *File) bool {
	plain, err := os.Stat(f.Path)
	if err != nil || plain.Size() == 0 {
		return false
	}
	if f.Bytes > 0 {
		return plain.Size() == f.Bytes
	}
	arch, err := os.Stat(f.Source)
	return err != nil || !plain.ModTime().Before(arch.ModTime())
}

// decompress writes src's content to dst through a temporary file, so
// that an interrupted decompression leaves no partial file behind.
func decompress(ctx context.Context, src, dst, ext string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("cannot read the documents: %w", err)
	}
	defer in.Close()
	var r io.Reader
	switch ext {
	case ".bz2":
		r = bzip2.NewReader(bufio.NewReaderSize(in, 1<<20))
	case ".gz":
		z, err := gzip.NewReader(bufio.NewReaderSize(in, 1<<20))
		if err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		defer z.Close()
		r = z
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), filepath.Base(dst)+".part-*")
	if err != nil {
		return fmt.Errorf("cannot decompress %s beside it: %w", src, err)
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<20)
	buf := make([]byte, 1<<20)
	for {
		if err := ctx.Err(); err != nil {
			tmp.Close()
			return err
		}
		n, rerr := r.Read(buf)
		if _, err := w.Write(buf[:n]); err != nil {
			tmp.Close()
			return fmt.Errorf("decompressing %s: %w", src, err)
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			tmp.Close()
			return fmt.Errorf("decompressing %s: %w", src, rerr)
		}
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("decompressing %s: %w", src, err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

// lines counts the documents (non-empty lines) of a file up to limit of
// them, and the offset just past the last one counted.
func lines(ctx context.Context, path string, limit int64) (n, end int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, fmt.Errorf("cannot read the documents: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var off int64
	empty := true // the current line has no byte yet
	for n < limit {
		chunk, err := r.ReadSlice('\n')
		off += int64(len(chunk))
		if len(bytes.TrimSpace(chunk)) > 0 {
			empty = false
		}
		switch err {
		case nil:
			if !empty {
				n++
				end = off
			}
			empty = true
			if n%(1<<20) == 0 && ctx.Err() != nil {
				return 0, 0, ctx.Err()
			}
		case bufio.ErrBufferFull:
		case io.EOF:
			if !empty {
				n++
				end = off
			}
			return n, end, nil
		default:
			return 0, 0, fmt.Errorf("reading %s: %w", path, err)
		}
	}
	return n, end, nil
}

// Identity names the documents a run sends, for the record's fingerprint:
// a SHA-256 over each file's documents count, size, first and last MiB.
// Reading the whole of a corpus of tens of gigabytes at every run would
// cost minutes; two corpora that differ only in their middle are not what
// it guards against.
func (t *Track) Identity() (string, error) {
	h := sha256.New()
	for _, f := range t.Files {
		if f.Path == "" {
			return "", errNotPrepared
		}
		fmt.Fprintf(h, "%s\n%d %d\n", f.Index, f.Ingest, f.End)
		fh, err := os.Open(f.Path)
		if err != nil {
			return "", err
		}
		const mib = 1 << 20
		if _, err := io.Copy(h, io.NewSectionReader(fh, 0, min(mib, f.End))); err != nil {
			fh.Close()
			return "", err
		}
		if f.End > mib {
			if _, err := io.Copy(h, io.NewSectionReader(fh, max(mib, f.End-mib), min(mib, f.End-mib))); err != nil {
				fh.Close()
				return "", err
			}
		}
		fh.Close()
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}
