package iotdb

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/apache/iotdb-client-go/v2/client"
	"github.com/apache/iotdb-client-go/v2/common"
	"github.com/apache/iotdb-client-go/v2/rpc"
	"github.com/apache/thrift/lib/go/thrift"

	"github.com/tsbench/tsbench/adapters"
	"github.com/tsbench/tsbench/config"
)

// session is one open IoTDB session on its own connection. The client
// library's Session ignores contexts (its calls use context.Background and
// its socket has no read timeout), so a stalled server would hang an
// operation forever; tsbench drives the same thrift service directly and
// closes the socket when an operation's context ends.
type session struct {
	trans     thrift.TTransport
	rpc       *rpc.IClientRPCServiceClient
	id        int64
	statement int64
	addr      string
	broken    bool
}

// ServerError is an error status returned by IoTDB.
type ServerError struct {
	Code    int32
	Message string
}

func (e *ServerError) Error() string { return fmt.Sprintf("IoTDB error %d: %s", e.Code, e.Message) }

// check turns a status into an error, looking into multi-status results.
func checkStatus(st *common.TSStatus) error {
	if st == nil {
		return errors.New("IoTDB returned no status")
	}
	switch st.Code {
	case client.SuccessStatus, client.RedirectionRecommend:
		return nil
	case client.MultipleError:
		for _, sub := range st.GetSubStatus() {
			if err := checkStatus(sub); err != nil {
				return err
			}
		}
		return nil
	}
	return &ServerError{Code: st.Code, Message: st.GetMessage()}
}

type poolConfig struct {
	addrs          []string
	user, password string
	compact        bool // thrift compact protocol (ENABLE_THRIFT_COMPRESSION)
	connectTimeout time.Duration
	size           int
	zone           string
	tls            *tls.Config // nil: plain TCP
	// dialect is the session's SQL dialect, tree or table; database, in
	// the table model, the database its writes go to (tablets name only
	// their table).
	dialect, database string
}

// pool hands out sessions, at most size at a time, trying the hosts in
// order when it opens a new one.
type pool struct {
	cfg  poolConfig
	sem  chan struct{}
	mu   sync.Mutex
	idle []*session
	next int
}

func newPool(cfg poolConfig) *pool {
	return &pool{cfg: cfg, sem: make(chan struct{}, max(cfg.size, 1))}
}

func (p *pool) open(ctx context.Context) (*session, error) {
	var errs []error
	p.mu.Lock()
	start := p.next
	p.next++
	p.mu.Unlock()
	for i := range p.cfg.addrs {
		addr := p.cfg.addrs[(start+i)%len(p.cfg.addrs)]
		s, err := p.dial(ctx, addr)
		if err == nil {
			return s, nil
		}
		errs = append(errs, err)
		var se *ServerError
		if errors.As(err, &se) {
			return nil, err // the server answered: another host will say the same
		}
	}
	return nil, errors.Join(errs...)
}

func (p *pool) dial(ctx context.Context, addr string) (*session, error) {
	conf := &thrift.TConfiguration{ConnectTimeout: p.cfg.connectTimeout, MaxFrameSize: thrift.DEFAULT_MAX_FRAME_SIZE, TLSConfig: p.cfg.tls}
	var trans *oneWriteFrames
	if p.cfg.tls != nil {
		trans = newOneWriteFrames(thrift.NewTSSLSocketConf(addr, conf), conf)
		if err := trans.Open(); err != nil {
			return nil, fmt.Errorf("cannot connect to IoTDB at %s: %w", addr, unwrapNet(err))
		}
	} else {
		// Dialled here, not by thrift, to keep the TCP connection for
		// the frames' writes (see rawWrites).
		d := net.Dialer{Timeout: p.cfg.connectTimeout}
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("cannot connect to IoTDB at %s: %w", addr, unwrapNet(err))
		}
		trans = newOneWriteFrames(thrift.NewTSocketFromConnConf(conn, conf), conf)
		trans.raw = rawWrites(conn)
	}
	var pf thrift.TProtocolFactory = thrift.NewTBinaryProtocolFactoryConf(conf)
	if p.cfg.compact {
		pf = thrift.NewTCompactProtocolFactoryConf(conf)
	}
	c := rpc.NewIClientRPCServiceClient(thrift.NewTStandardClient(pf.GetProtocol(trans), pf.GetProtocol(trans)))
	s := &session{trans: trans, rpc: c, addr: addr}
	stop := context.AfterFunc(ctx, func() { trans.Close() })
	defer stop()
	pw := p.cfg.password
	conf2 := map[string]string{"sql_dialect": cmp.Or(p.cfg.dialect, config.DialectTree), "version": string(client.V_1_0)}
	if p.cfg.database != "" {
		conf2["db"] = p.cfg.database
	}
	req := &rpc.TSOpenSessionReq{ClientProtocol: rpc.TSProtocolVersion_IOTDB_SERVICE_PROTOCOL_V3, ZoneId: p.cfg.zone, Username: p.cfg.user, Password: &pw,
		Configuration: conf2}
	resp, err := c.OpenSession(ctx, req)
	if err != nil {
		trans.Close()
		hint := ""
		switch {
		case p.cfg.compact:
			hint = " (ENABLE_THRIFT_COMPRESSION=true needs the server's dn_rpc_thrift_compression_enable=true)"
		case p.cfg.tls == nil && strings.Contains(err.Error(), "frame size"):
			hint = " (the server may require TLS: USE_SSL=true with TRUST_STORE_PATH)"
		}
		return nil, fmt.Errorf("cannot open a session on IoTDB at %s: %w%s", addr, unwrapNet(err), hint)
	}
	if err := checkStatus(resp.Status); err != nil {
		trans.Close()
		return nil, fmt.Errorf("IoTDB at %s refused user %q: %w", addr, p.cfg.user, err)
	}
	s.id = resp.GetSessionId()
	if s.statement, err = c.RequestStatementId(ctx, s.id); err != nil {
		trans.Close()
		return nil, fmt.Errorf("IoTDB at %s: request statement id: %w", addr, err)
	}
	return s, nil
}

func unwrapNet(err error) error {
	var ne *net.OpError
	if errors.As(err, &ne) {
		return ne
	}
	return err
}

// do runs f on a pooled session. When ctx ends first, the session's socket
// is closed, which makes f return at once; the session is then discarded.
func (p *pool) do(ctx context.Context, f func(ctx context.Context, s *session) error) error {
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("waiting for an IoTDB session: %w", ctx.Err())
	}
	defer func() { <-p.sem }()
	p.mu.Lock()
	var s *session
	if n := len(p.idle); n > 0 {
		s, p.idle = p.idle[n-1], p.idle[:n-1]
	}
	p.mu.Unlock()
	if s == nil {
		var err error
		if s, err = p.open(ctx); err != nil {
			return err
		}
	}
	stop := context.AfterFunc(ctx, func() { s.trans.Close() })
	err := f(ctx, s)
	if !stop() {
		s.broken = true
		if ctxErr := ctx.Err(); ctxErr != nil {
			err = fmt.Errorf("%w (IoTDB at %s did not answer in time)", ctxErr, s.addr)
		}
	}
	var te thrift.TTransportException
	var pe thrift.TProtocolException
	if errors.As(err, &te) || errors.As(err, &pe) {
		s.broken = true
	}
	if s.broken {
		s.trans.Close()
		return err
	}
	p.mu.Lock()
	p.idle = append(p.idle, s)
	p.mu.Unlock()
	return err
}

func (p *pool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.idle {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, _ = s.rpc.CloseSession(ctx, &rpc.TSCloseSessionReq{SessionId: s.id})
		cancel()
		s.trans.Close()
	}
	p.idle = nil
}

// exec runs a statement that returns no rows.
func (p *pool) exec(ctx context.Context, sql string) error {
	return p.do(ctx, func(ctx context.Context, s *session) error {
		resp, err := s.rpc.ExecuteUpdateStatementV2(ctx, &rpc.TSExecuteStatementReq{SessionId: s.id, Statement: sql, StatementId: s.statement})
		if err != nil {
			return fmt.Errorf("%s: %w", brief(sql), err)
		}
		if err := checkStatus(resp.Status); err != nil {
			return fmt.Errorf("%s: %w", brief(sql), err)
		}
		return nil
	})
}

// brief shortens a statement for an error message: the schema of a device
// with a hundred sensors is a 10 KB statement, which buried the server's
// reason at the end of one line.
func brief(sql string) string {
	const keep = 160
	if len(sql) <= keep+40 {
		return sql
	}
	cut := keep
	for cut > 0 && !utf8.RuneStart(sql[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d characters)", sql[:cut], len(sql))
}

// query runs a query and hands each row of the result to row.
func (p *pool) query(ctx context.Context, sql string, fetch int32, row func(ds *client.SessionDataSet) error) error {
	return p.do(ctx, func(ctx context.Context, s *session) error {
		var timeout *int64
		if dl, ok := ctx.Deadline(); ok {
			ms := time.Until(dl).Milliseconds()
			timeout = &ms // the server stops the query too, not just the client
		}
		resp, err := s.rpc.ExecuteQueryStatementV2(ctx, &rpc.TSExecuteStatementReq{SessionId: s.id, Statement: sql, StatementId: s.statement, FetchSize: &fetch, Timeout: timeout})
		if err != nil {
			return err
		}
		if err := checkStatus(resp.Status); err != nil {
			return err
		}
		more := resp.MoreData != nil && *resp.MoreData
		if !more {
			// The whole result is in: the rest (decoding it, closing
			// the query) is tsbench's time, not the server's.
			adapters.Received(ctx)
		}
		var qid int64
		if resp.QueryId != nil {
			qid = *resp.QueryId
		}
		ds, err := client.NewSessionDataSet(sql, resp.Columns, resp.DataTypeList, resp.ColumnNameIndexMap, qid, s.statement, s.rpc, s.id,
			resp.QueryResult_, resp.IgnoreTimeStamp != nil && *resp.IgnoreTimeStamp, timeout, more, fetch, "UTC", 1_000, resp.GetColumnIndex2TsBlockColumnIndexList())
		if err != nil {
			return err
		}
		defer ds.Close()
		for {
			ok, err := ds.Next()
			if err != nil {
				return err
			}
			if !ok {
				return nil
			}
			if err := row(ds); err != nil {
				return err
			}
		}
	})
}

func joinHostPort(h string, port int) string { return net.JoinHostPort(h, strconv.Itoa(port)) }
