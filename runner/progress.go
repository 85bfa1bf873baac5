package runner

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress shows how far a phase is: a live bar with ETA on a terminal, a
// plain line every few seconds otherwise (CI logs, files).
type progress struct {
	stopOnce sync.Once
	quit     chan struct{}
	wg       sync.WaitGroup
}

func startProgress(opts Options, phase, unit string, total int64, done, points *atomic.Int64, start time.Time, every, maxTime time.Duration) *progress {
	p := &progress{quit: make(chan struct{})}
	if total <= 0 {
		return p
	}
	if every <= 0 {
		every = 5 * time.Second
	}
	var bar *progressbar.ProgressBar
	tick := every
	if opts.Terminal {
		bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(opts.Progress),
			progressbar.OptionSetDescription(phase),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
		tick = 200 * time.Millisecond
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-p.quit:
				if bar != nil {
					bar.Set64(done.Load())
					bar.Finish()
				}
				return
			case <-t.C:
				d := done.Load()
				if bar != nil {
					bar.Set64(d)
					continue
				}
				el := time.Since(start)
				eta := etaText(el, d, total, maxTime)
				// Steps, not the Result Matrix's operations: a client's write
				// step sends a batch to each of its devices, which the matrix
				// counts one operation each; the points are the matrix's.
				fmt.Fprintf(opts.Progress, "%s: %.1f%% (%d/%d %s), %d points written, %.0f s elapsed, ETA %s\n",
					phase, 100*float64(d)/float64(total), d, total, unit, points.Load(), el.Seconds(), eta)
			}
		}
	}()
	return p
}

// etaText is the time a phase has left: its steps' pace over the steps
// left, or where TEST_MAX_TIME (maxTime) ends it sooner, the time to that
// end (a duration-bound run's steps are an upper bound it never reaches).
func etaText(el time.Duration, done, total int64, maxTime time.Duration) string {
	left := -1.0
	if done > 0 {
		left = el.Seconds() / float64(done) * float64(total-done)
	}
	if maxTime > 0 {
		if byTime := max(0, (maxTime - el).Seconds()); left < 0 || byTime < left {
			return fmt.Sprintf("%.0f s (TEST_MAX_TIME)", byTime)
		}
	}
	if left < 0 {
		return "unknown"
	}
	return fmt.Sprintf("%.0f s", left)
}

func (p *progress) stop() {
	p.stopOnce.Do(func() { close(p.quit) })
	p.wg.Wait()
}
