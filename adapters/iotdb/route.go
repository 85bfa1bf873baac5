package iotdb

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/apache/iotdb-client-go/v2/common"
)

// router sends a device's writes to the DataNode that leads its data
// region, as IoTDB's own sessions do. Any DataNode takes a write and
// forwards it to the leader, then answers "redirection recommended" with
// the leader's address; following that saves a hop on every later write of
// the device. Only with several HOST/PORT entries: one node leads all.
type router struct {
	mu    sync.Mutex
	pools map[string]*pool // by leader address and session database
	to    sync.Map         // device key → leader address
	// down holds leaders whose writes failed, with the time: until the
	// cluster elects new ones it keeps naming them, and following it would
	// fail every write of their devices meanwhile.
	down sync.Map // address → time.Time
}

// quarantine is how long a failed leader's redirections are not followed.
const quarantine = 15 * time.Second

func newRouter() *router { return &router{pools: map[string]*pool{}} }

// learn follows a redirection unless its address failed lately.
func (r *router) learn(key, addr string) {
	if t, ok := r.down.Load(addr); ok && time.Since(t.(time.Time)) < quarantine {
		return
	}
	r.to.Store(key, addr)
}

// poolFor is the pool that writes of key go to: the leader's, once known,
// else via (the pool of the HOST list).
func (a *Adapter) poolFor(key string, via *pool) *pool {
	if a.route == nil || key == "" {
		return via
	}
	addr, ok := a.route.to.Load(key)
	if !ok {
		return via
	}
	r := a.route
	id := addr.(string) + "/" + via.cfg.database
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.pools[id]
	if !ok {
		cfg := via.cfg
		cfg.addrs = []string{addr.(string)}
		p = newPool(cfg)
		r.pools[id] = p
	}
	return p
}

// send runs one write RPC of key (a device; "" for a write of several) on
// the right pool, checks its status and learns the leader from it. A write
// that fails on a leader's pool forgets the leader: the node may be down,
// and the HOST list's nodes know the new one.
func (a *Adapter) send(ctx context.Context, key string, via *pool, what func() string, rpcCall func(ctx context.Context, s *session) (*common.TSStatus, error)) error {
	p := a.poolFor(key, via)
	err := p.do(ctx, func(ctx context.Context, s *session) error {
		st, err := rpcCall(ctx, s)
		if err != nil {
			return err
		}
		if err := checkStatus(st); err != nil {
			return fmt.Errorf("%s: %w", what(), err)
		}
		if a.route != nil && key != "" && st.GetRedirectNode() != nil {
			ep := st.GetRedirectNode()
			a.route.learn(key, net.JoinHostPort(ep.IP, strconv.Itoa(int(ep.Port))))
		}
		return nil
	})
	if err != nil && p != via {
		a.route.to.Delete(key)
		a.route.down.Store(p.cfg.addrs[0], time.Now())
	}
	return err
}

func (r *router) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.pools {
		p.close()
	}
	r.pools = map[string]*pool{}
}
