package routine

import (
	"context"
	"fmt"
	"sync"
)

// duet holds the runs of one block (one a side, made at once) at each of
// their measured steps until every run still going has reached it: the
// k-th step of each begins when all have come to their k-th. A run that
// ends (done or failed) leaves, and the others no longer wait for it.
type duet struct {
	mu      sync.Mutex
	live    int
	arrived map[int]int
	name    map[int]string
	open    map[int]chan struct{}
}

func newDuet(n int) *duet {
	return &duet{live: n, arrived: map[int]int{}, name: map[int]string{}, open: map[int]chan struct{}{}}
}

// Party is one run's place in a duet.
type Party struct {
	d    *duet
	next int
	left bool
}

func (d *duet) party() *Party { return &Party{d: d} }

// Wait returns when every run of the duet still going has come to this
// step (the run's next), or with an error when ctx ends or the runs'
// steps differ (their plans are not the same).
func (p *Party) Wait(ctx context.Context, step string) error {
	d := p.d
	d.mu.Lock()
	k := p.next
	p.next++
	if first, ok := d.name[k]; ok && first != step {
		d.mu.Unlock()
		return fmt.Errorf("the duet's runs reached different steps together (%q and %q): their plans differ", first, step)
	}
	d.name[k] = step
	gate := d.gate(k)
	d.arrived[k]++
	d.release()
	d.mu.Unlock()
	select {
	case <-gate:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// wait is the party's Wait for a run's options, nil for a run made alone.
func (p *Party) wait() func(context.Context, string) error {
	if p == nil {
		return nil
	}
	return p.Wait
}

// Leave takes the run out of the duet: the others no longer wait for it.
func (p *Party) Leave() {
	d := p.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if !p.left {
		p.left = true
		d.live--
		d.release()
	}
}

// gate is step k's channel, closed when the step may begin.
func (d *duet) gate(k int) chan struct{} {
	ch, ok := d.open[k]
	if !ok {
		ch = make(chan struct{})
		d.open[k] = ch
	}
	return ch
}

// release opens every step that all runs still going have reached.
func (d *duet) release() {
	for k, n := range d.arrived {
		if n >= d.live && n > 0 {
			ch := d.gate(k)
			select {
			case <-ch:
			default:
				close(ch)
			}
		}
	}
}
