package elasticsearch

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/generator"
)

// Write sends the batch as one _bulk request: one index action and one
// document per row. A bulk answers 200 even when items fail; any failed
// item fails the write with the server's reason and the number that failed.
func (a *Adapter) Write(ctx context.Context, b *generator.Batch) error {
	buf := a.getBuf()
	defer a.bufs.Put(buf)
	*buf = a.encodeBulk((*buf)[:0], b)
	adapters.Sent(ctx, len(*buf))
	data, err := a.send(ctx, http.MethodPost, a.bulkPath, "application/x-ndjson", *buf, nil)
	if err != nil {
		return fmt.Errorf("bulk of %s: %w", b.Device.Name, err)
	}
	// The answer starts {"took":N,"errors":false,…: skip decoding the items
	// of a bulk that had no error.
	head := data[:min(len(data), 64)]
	if bytes.Contains(head, []byte(`"errors":false`)) {
		return nil
	}
	return bulkError(b, data)
}

func (a *Adapter) getBuf() *[]byte {
	if p, ok := a.bufs.Get().(*[]byte); ok {
		return p
	}
	p := make([]byte, 0, 64<<10)
	return &p
}

// bulkError reads the failed items of a bulk answer.
func bulkError(b *generator.Batch, data []byte) error {
	failed, first, err := failedItems(data)
	if err != nil {
		return fmt.Errorf("bulk of %s: unreadable answer: %w", b.Device.Name, err)
	}
	if failed == 0 {
		return nil
	}
	return &adapters.PartialWriteError{Failed: int64(failed) * int64(len(b.Columns)),
		Err: fmt.Errorf("bulk of %s: %d of %d documents failed, the first with %s", b.Device.Name, failed, b.Len(), first)}
}

// encodeBulk appends the NDJSON body of a batch to dst, with no allocation
// once dst has grown to a batch's size.
func (a *Adapter) encodeBulk(dst []byte, b *generator.Batch) []byte {
	action := a.actions[b.Device.Group]
	for i, ts := range b.Timestamps {
		dst = append(dst, action...)
		dst = append(dst, `{"device":`...)
		dst = appendJSONString(dst, b.Device.Name)
		dst = append(dst, `,"ts":`...)
		dst = strconv.AppendInt(dst, ts, 10)
		if a.tsds {
			dst = append(dst, `,"@timestamp":`...)
			dst = strconv.AppendInt(dst, ts, 10)
		}
		for j := range b.Columns {
			c := &b.Columns[j]
			dst = append(dst, ',')
			dst = appendJSONString(dst, c.Sensor.Name)
			dst = append(dst, ':')
			switch c.Sensor.Type {
			case generator.Boolean:
				dst = strconv.AppendBool(dst, c.Bools[i])
			case generator.Int32:
				dst = strconv.AppendInt(dst, int64(c.Int32s[i]), 10)
			case generator.Int64:
				dst = strconv.AppendInt(dst, c.Int64s[i], 10)
			case generator.Float:
				dst = appendFloat(dst, float64(c.Float32s[i]), 32)
			case generator.Double:
				dst = appendFloat(dst, c.Float64s[i], 64)
			case generator.Text, generator.String:
				dst = appendJSONString(dst, c.Texts[i])
			}
		}
		dst = append(dst, '}', '\n')
	}
	return dst
}

// appendFloat writes the shortest form that reads back as the same value
// at its size; JSON has no NaN or infinity, so those become null.
func appendFloat(dst []byte, f float64, bits int) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	return strconv.AppendFloat(dst, f, 'g', -1, bits)
}

// appendJSONString quotes s for JSON.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = append(dst, `\ufffd`...)
			} else {
				dst = append(dst, s[i:i+size]...)
			}
			i += size
			continue
		}
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			const hex = "0123456789abcdef"
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		i++
	}
	return append(dst, '"')
}
