package iotdb

import (
	"bytes"
	"io"
	"math/rand/v2"
	"net"
	"testing"
	"time"
)

// tcpPair is a connected client and server socket on 127.0.0.1.
func tcpPair(t *testing.T) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if server, err = ln.Accept(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

// TestRawWrites: frames far larger than the socket's buffers arrive whole
// and in order (the kernel takes them in parts, the rest after waiting for
// room), and a write the peer never reads ends with an error when the
// socket is closed, as the pool does when an operation's time is up.
func TestRawWrites(t *testing.T) {
	client, server := tcpPair(t)
	w := rawWrites(client)
	if w == nil {
		t.Fatal("no raw writer for a TCP connection")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var sent bytes.Buffer
	frames := make([][]byte, 3)
	for i := range frames {
		frames[i] = make([]byte, 8<<20+i)
		for k := range frames[i] {
			frames[i][k] = byte(rng.Uint32())
		}
		sent.Write(frames[i])
	}
	got := make(chan []byte)
	server.SetReadDeadline(time.Now().Add(20 * time.Second))
	go func() {
		b, _ := io.ReadAll(io.LimitReader(server, int64(sent.Len())))
		got <- b
	}()
	for _, f := range frames {
		if err := w(f); err != nil {
			t.Fatal(err)
		}
	}
	if b := <-got; !bytes.Equal(b, sent.Bytes()) {
		t.Fatalf("the peer read %d bytes, not the %d written", len(b), sent.Len())
	}

	done := make(chan error)
	go func() { done <- w(make([]byte, 256<<20)) }()
	time.Sleep(100 * time.Millisecond)
	client.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a write into a closed socket returned no error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a write blocked on a full socket did not end when the socket was closed")
	}
}
