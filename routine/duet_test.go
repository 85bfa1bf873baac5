package routine

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestDuetWaitsForEveryRun: a step begins only when every run still going
// has reached it; a run that leaves is no longer waited for; runs whose
// steps differ are told so; an interrupt ends the wait.
func TestDuetWaitsForEveryRun(t *testing.T) {
	ctx := context.Background()
	d := newDuet(2)
	a, b := d.party(), d.party()
	var passed atomic.Int32
	done := make(chan error, 1)
	go func() {
		err := a.Wait(ctx, "ingest")
		passed.Add(1)
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	if passed.Load() != 0 {
		t.Fatal("a step began before the other run reached it")
	}
	if err := b.Wait(ctx, "ingest"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// b fails before its next step: a goes on alone.
	go func() { done <- a.Wait(ctx, "query round 1") }()
	time.Sleep(20 * time.Millisecond)
	b.Leave()
	b.Leave() // twice is once
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a waited for a run that had left")
	}
	if err := a.Wait(ctx, "verify"); err != nil {
		t.Fatalf("alone: %v", err)
	}

	d = newDuet(2)
	a, b = d.party(), d.party()
	go func() { _ = a.Wait(ctx, "ingest") }()
	time.Sleep(20 * time.Millisecond)
	if err := b.Wait(ctx, "query round 1"); err == nil || !strings.Contains(err.Error(), "their plans differ") {
		t.Errorf("different steps: %v", err)
	}

	d = newDuet(2)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := d.party().Wait(cctx, "ingest"); !errors.Is(err, context.Canceled) {
		t.Errorf("interrupted: %v", err)
	}
	var alone *Party
	if alone.wait() != nil {
		t.Error("a run made alone has a duet to wait for")
	}
}
