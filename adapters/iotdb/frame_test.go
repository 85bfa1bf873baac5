package iotdb

import (
	"bytes"
	"context"
	"encoding/binary"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"
)

// writeCounter is a transport that keeps each write apart and answers
// reads from a buffer.
type writeCounter struct {
	thrift.TTransport
	writes [][]byte
	in     bytes.Buffer
}

func (w *writeCounter) Write(p []byte) (int, error) {
	w.writes = append(w.writes, bytes.Clone(p))
	return len(p), nil
}
func (w *writeCounter) Read(p []byte) (int, error)         { return w.in.Read(p) }
func (w *writeCounter) Flush(context.Context) error        { return nil }
func (w *writeCounter) IsOpen() bool                       { return true }
func (w *writeCounter) RemainingBytes() (num_bytes uint64) { return uint64(w.in.Len()) }

// TestFrameInOneWrite: a request written through the binary protocol
// reaches the socket as one write holding the length and the payload, and
// frames the peer sends are read back as thrift's framed transport reads
// them.
func TestFrameInOneWrite(t *testing.T) {
	sock := &writeCounter{}
	conf := &thrift.TConfiguration{MaxFrameSize: thrift.DEFAULT_MAX_FRAME_SIZE}
	f := newOneWriteFrames(sock, conf)
	p := thrift.NewTBinaryProtocolFactoryConf(conf).GetProtocol(f)
	ctx := context.Background()
	for round := range 2 {
		sock.writes = nil
		_ = p.WriteMessageBegin(ctx, "insertTablet", thrift.CALL, int32(round))
		_ = p.WriteString(ctx, "root.sg.d_0")
		_ = p.WriteBinary(ctx, bytes.Repeat([]byte{7}, 70000))
		_ = p.WriteByte(ctx, 3)
		_ = p.WriteMessageEnd(ctx)
		if err := p.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if len(sock.writes) != 1 {
			t.Fatalf("round %d: %d writes for one frame", round, len(sock.writes))
		}
		w := sock.writes[0]
		if n := binary.BigEndian.Uint32(w); int(n) != len(w)-4 || n < 70000 {
			t.Fatalf("round %d: length %d for a %d-byte payload", round, n, len(w)-4)
		}
		// The payload reads back as the protocol wrote it.
		sock.in.Write(w)
		back := thrift.NewTBinaryProtocolFactoryConf(conf).GetProtocol(f)
		name, _, seq, err := back.ReadMessageBegin(ctx)
		if err != nil || name != "insertTablet" || seq != int32(round) {
			t.Fatalf("round %d: read back %q %d: %v", round, name, seq, err)
		}
		if s, err := back.ReadString(ctx); err != nil || s != "root.sg.d_0" {
			t.Fatalf("round %d: read back %q: %v", round, s, err)
		}
		if b, err := back.ReadBinary(ctx); err != nil || len(b) != 70000 {
			t.Fatalf("round %d: read back %d bytes: %v", round, len(b), err)
		}
		if c, err := back.ReadByte(ctx); err != nil || c != 3 {
			t.Fatalf("round %d: read back byte %d: %v", round, c, err)
		}
	}
}
