package iotdb

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/thrift/lib/go/thrift"
)

// oneWriteFrames is thrift's framed transport whose frames leave in one
// write. thrift's TFramedTransport writes a frame's 4-byte length and its
// payload apart: two system calls a request, and with TCP_NODELAY two TCP
// segments, the first of 4 bytes; the kernel's side of that was a large
// part of tsbench's CPU against a server on the same machine. Reading,
// opening and closing are TFramedTransport's.
type oneWriteFrames struct {
	*thrift.TFramedTransport
	sock thrift.TTransport
	out  []byte // the length's 4 bytes, then the frame being written
	// raw writes a frame straight to the socket when it can (rawWrites);
	// nil: through sock.
	raw func([]byte) error
}

func newOneWriteFrames(sock thrift.TTransport, conf *thrift.TConfiguration) *oneWriteFrames {
	return &oneWriteFrames{TFramedTransport: thrift.NewTFramedTransportConf(sock, conf), sock: sock, out: make([]byte, 4, 4096)}
}

func (f *oneWriteFrames) Write(p []byte) (int, error) {
	f.out = append(f.out, p...)
	return len(p), nil
}

// WriteByte and WriteString must be f's too: the protocols call them
// when the transport has them, and TFramedTransport's would write into its
// own buffer.
func (f *oneWriteFrames) WriteByte(c byte) error {
	f.out = append(f.out, c)
	return nil
}

func (f *oneWriteFrames) WriteString(s string) (int, error) {
	f.out = append(f.out, s...)
	return len(s), nil
}

// Flush sends the frame: its length and payload in one write.
func (f *oneWriteFrames) Flush(ctx context.Context) error {
	n := len(f.out) - 4
	if uint64(n) > math.MaxUint32 {
		f.out = f.out[:4]
		return thrift.NewTTransportException(thrift.UNKNOWN_TRANSPORT_EXCEPTION, fmt.Sprintf("frame too large: %d bytes", n))
	}
	binary.BigEndian.PutUint32(f.out, uint32(n))
	var err error
	if f.raw != nil {
		err = f.raw(f.out)
	} else {
		_, err = f.sock.Write(f.out)
	}
	f.out = f.out[:4]
	if err != nil {
		return thrift.NewTTransportExceptionFromError(err)
	}
	return thrift.NewTTransportExceptionFromError(f.sock.Flush(ctx))
}
