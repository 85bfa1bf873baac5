package iotdb

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/apache/iotdb-client-go/v2/rpc"
	"github.com/apache/thrift/lib/go/thrift"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
	"github.com/tsbench/tsbench/generator"
)

// floorEnv makes the test binary a minimal tablet client (floorClient)
// instead of running tests. tools/perf runs it beside tsbench's IoTDB
// ingest: the difference in CPU per point is what tsbench itself costs.
const floorEnv = "TSBENCH_IOTDB_FLOOR"

func TestMain(m *testing.M) {
	if spec := os.Getenv(floorEnv); spec != "" {
		os.Exit(floorClient(spec))
	}
	os.Exit(m.Run())
}

// floorClient is the least CPU any client can spend writing tsbench's
// tablets to IoTDB: the frames of insertTablet are encoded once, and each
// request only stamps new times into its frame, writes it in one system
// call and decodes the status of the answer. spec is a config file and
// KEY=VALUE settings, as bench takes them; the client writes what a
// bench run of that config writes (DATA_CLIENT_NUMBER connections, LOOP
// tablets of BATCH_SIZE_PER_WRITE rows for each of a client's devices),
// at rows after the ones bench wrote, into the schema bench created. It
// prints the points it wrote.
func floorClient(spec string) int {
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "%s: %v\n", floorEnv, err)
		return 1
	}
	f := strings.Fields(spec)
	if len(f) == 0 {
		return fail(fmt.Errorf("want a config file and KEY=VALUE settings"))
	}
	l, err := config.Load(config.Source{Path: f[0], Sets: f[1:], Catalog: adapters.Registry{Driver()}})
	if err != nil {
		return fail(err)
	}
	c := l.Config
	s, err := generator.NewSchema(c)
	if err != nil {
		return fail(err)
	}
	points, err := writeFloor(context.Background(), c, s)
	if err != nil {
		return fail(err)
	}
	fmt.Printf("floor: %d points\n", points)
	return 0
}

// writeFloor is floorClient's work, on the schema bench created for c.
func writeFloor(ctx context.Context, c *config.Config, s *generator.Schema) (int64, error) {
	rows := c.Loop * int64(c.BatchSize)
	g := generator.New(s, c, 3*rows)
	ad, err := Driver().Open(ctx, adapters.Params{Config: c, Schema: s})
	if err != nil {
		return 0, err
	}
	a := ad.(*Adapter)
	defer a.Close()
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		points int64
		errs   []error
	)
	for k := range c.DataClients {
		wg.Go(func() {
			n, err := floorConn(ctx, a, g, k, c.DataClients, rows)
			mu.Lock()
			defer mu.Unlock()
			points += n
			errs = append(errs, err)
		})
	}
	wg.Wait()
	return points, errors.Join(errs...)
}

// TestFloorClient writes with the floor client and counts the points the
// server holds afterwards: its figure in docs/performance.md is of writes
// that landed.
func TestFloorClient(t *testing.T) {
	p := runPlan(t, "DB_NAME=floor", "GROUP_NUMBER=1", "DEVICE_NUMBER=3", "SENSOR_NUMBER=6", "INSERT_DATATYPE_PROPORTION=1:1:1:1:1:1:0:0:0:0:0",
		"DATA_CLIENT_NUMBER=2", "BATCH_SIZE_PER_WRITE=10", "LOOP=4", "VERIFY=false")
	a := openAfter(t, p)
	ctx := context.Background()
	if err := a.CreateSchema(ctx); err != nil {
		t.Fatal(err)
	}
	points, err := writeFloor(ctx, p.Config, p.Schema)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(3 * 4 * 10 * 6); points != want {
		t.Fatalf("the floor client reports %d points, want %d", points, want)
	}
	for d := range p.Schema.Devices {
		n, err := a.CountPoints(ctx, &p.Schema.Devices[d])
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(4 * 10 * 6); n != want {
			t.Errorf("device %s holds %d points after the floor client, want %d", p.Schema.Devices[d].Name, n, want)
		}
	}
}

// floorConn is client k of floorClient on a session of its own: devices
// k, k+clients, …, each LOOP times in turn.
func floorConn(ctx context.Context, a *Adapter, g *generator.Generator, k, clients int, rows int64) (int64, error) {
	s, err := a.pool.open(ctx)
	if err != nil {
		return 0, err
	}
	defer s.trans.Close()
	conn := s.trans.(*oneWriteFrames).sock.(*thrift.TSocket).Conn()
	type tablet struct {
		frame []byte
		ts    int   // offset of the timestamps in frame
		t0    int64 // time of the first row the client writes
		step  int64
		row   int64
	}
	var tablets []*tablet
	devs := g.Schema().Devices
	for d := k; d < len(devs); d += clients {
		b := g.NewBatch()
		g.NewStream(d).Next(b)
		e := &encoder{}
		e.sortRows(b)
		e.encodeTablet(false) // plain: the floor patches timestamps in place
		aligned := a.aligned
		req := &rpc.TSInsertTabletReq{SessionId: s.id, PrefixPath: a.paths[d], Measurements: a.names, Values: e.values, Timestamps: e.ts, Types: a.types, Size: int32(b.Len()), IsAligned: &aligned}
		frame, err := callFrame(ctx, "insertTablet", &rpc.IClientRPCServiceInsertTabletArgs{Req: req})
		if err != nil {
			return 0, err
		}
		at := bytes.Index(frame, e.ts)
		if at < 0 {
			return 0, fmt.Errorf("the timestamps of device %d are not in its insertTablet frame", d)
		}
		dev := &devs[d]
		t0 := g.Timestamp(dev, rows)
		tablets = append(tablets, &tablet{frame: frame, ts: at, t0: t0, step: g.Timestamp(dev, rows+1) - t0})
	}
	var points int64
	resp := make([]byte, 4096)
	for range a.cfg.Loop {
		for _, t := range tablets {
			ts := t.frame[t.ts : t.ts+8*a.cfg.BatchSize]
			for i := range a.cfg.BatchSize {
				binary.BigEndian.PutUint64(ts[8*i:], uint64(t.t0+(t.row+int64(i))*t.step))
			}
			t.row += int64(a.cfg.BatchSize)
			if _, err := conn.Write(t.frame); err != nil {
				return points, err
			}
			if resp, err = readFrame(conn, resp); err != nil {
				return points, err
			}
			var res rpc.IClientRPCServiceInsertTabletResult
			p := thrift.NewTBinaryProtocolConf(&thrift.TMemoryBuffer{Buffer: bytes.NewBuffer(resp)}, nil)
			if _, _, _, err := p.ReadMessageBegin(ctx); err != nil {
				return points, err
			}
			if err := res.Read(ctx, p); err != nil {
				return points, err
			}
			if err := checkStatus(res.Success); err != nil {
				return points, err
			}
			points += int64(a.cfg.BatchSize * len(a.names))
		}
	}
	return points, nil
}

// callFrame is the whole frame of a thrift call: its length, then the
// message in the binary protocol.
func callFrame(ctx context.Context, method string, args thrift.TStruct) ([]byte, error) {
	buf := thrift.NewTMemoryBuffer()
	p := thrift.NewTBinaryProtocolConf(buf, nil)
	if err := p.WriteMessageBegin(ctx, method, thrift.CALL, 1); err != nil {
		return nil, err
	}
	if err := args.Write(ctx, p); err != nil {
		return nil, err
	}
	if err := p.WriteMessageEnd(ctx); err != nil {
		return nil, err
	}
	if err := p.Flush(ctx); err != nil {
		return nil, err
	}
	return append(binary.BigEndian.AppendUint32(nil, uint32(buf.Len())), buf.Bytes()...), nil
}

// readFrame reads one frame's payload into buf (grown when too small).
func readFrame(conn net.Conn, buf []byte) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(conn, n[:]); err != nil {
		return buf, err
	}
	size := int(binary.BigEndian.Uint32(n[:]))
	if size > cap(buf) {
		buf = make([]byte, size)
	}
	buf = buf[:size]
	_, err := io.ReadFull(conn, buf)
	return buf, err
}
