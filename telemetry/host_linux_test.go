package telemetry

import (
	"context"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// selfCPU reads this process's user and system CPU seconds from
// /proc/self/stat by hand, apart from procfs: fields 14 and 15 after the
// command's closing parenthesis.
func selfCPU(t *testing.T) (user, sys float64) {
	t.Helper()
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	u, _ := strconv.ParseFloat(f[11], 64)
	s, _ := strconv.ParseFloat(f[12], 64)
	return u / 100, s / 100
}

// TestHost: the process listening on a port is found and sampled; its CPU
// over the sampling agrees with /proc read by hand within 10%; the
// machine is sampled; a port nobody listens on is said, not failed.
func TestHost(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nobody := free.Addr().(*net.TCPAddr).Port
	free.Close()

	s, notes, err := Host([]int{port, nobody})
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) == 0 || !strings.Contains(notes[0], "port "+strconv.Itoa(nobody)) {
		t.Errorf("notes %q, want one on port %d", notes, nobody)
	}
	names := s.Sources()
	if len(names) < 2 || names[0] != "machine" || !strings.HasPrefix(names[1], "process "+strconv.Itoa(os.Getpid())+" (") {
		t.Fatalf("sources %q: want the machine and this process (%d)", names, os.Getpid())
	}
	// The disk of the process's working folder, or a note saying why not.
	cwd, _ := os.Getwd()
	onDisk := len(names) == 3 && strings.HasPrefix(names[2], "disk ") && strings.HasSuffix(names[2], " ("+cwd+")")
	if !onDisk && (len(names) != 2 || len(notes) != 2 || !strings.Contains(notes[1], "no block device")) {
		t.Fatalf("sources %q, notes %q: want the disk of %s, or a note that it is on no block device", names, notes, cwd)
	}
	s.Interval = 50 * time.Millisecond
	u0, s0 := selfCPU(t)
	sm := s.Start(context.Background())
	// 0.4 s of CPU, however loaded the machine is (20 s at most).
	x := 0.0
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); {
		for i := range 100000 {
			x += float64(i)
		}
		if u, s := selfCPU(t); u+s-u0-s0 >= 0.4 {
			break
		}
	}
	// 8 MiB written and synced in the working folder, on its disk.
	f, err := os.CreateTemp(".", "disk-test")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(make([]byte, 8<<20)); err != nil || f.Sync() != nil || f.Close() != nil {
		t.Fatal(err)
	}
	srcs := sm.Stop()
	u1, s1 := selfCPU(t)
	want := (u1 - u0) + (s1 - s0)
	var got float64
	sums := srcs[1].Summaries()
	for _, su := range sums {
		if su.Name == "CPU user" || su.Name == "CPU system" {
			got += su.Total
		}
	}
	// Both read the same ticks (0.01 s); the margin covers the reads
	// between the two clocks.
	if want < 0.3 || got < want*0.9-0.02 || got > want*1.1+0.02 {
		t.Errorf("process CPU %.2f s sampled, %.2f s by /proc/self/stat (x %v)", got, want, x > 0)
	}
	for _, su := range sums {
		if su.Name == "resident memory" && su.Max < 1<<20 || su.Name == "threads" && su.Max < 1 {
			t.Errorf("%s: %+v", su.Name, su)
		}
	}
	if n := len(srcs[1].At); n < 5 {
		t.Errorf("%d samples in 0.4 s of CPU or more, at 50 ms", n)
	}
	var machineCPU float64
	for _, su := range srcs[0].Summaries() {
		if su.Name == "CPU user" || su.Name == "CPU system" {
			machineCPU += su.Total
		}
		if su.Name == "memory used" && su.Max <= 0 {
			t.Errorf("machine memory %+v", su)
		}
	}
	if machineCPU < got*0.9 {
		t.Errorf("the machine's CPU %.2f s is less than one of its processes' %.2f s", machineCPU, got)
	}
	if onDisk {
		for _, su := range srcs[2].Summaries() {
			if su.Name == "disk written" && su.Total < 8<<20 {
				t.Errorf("%s: %.0f bytes written over a sampling that wrote and synced 8 MiB", srcs[2].Name, su.Total)
			}
		}
	}
}

// BenchmarkSample is one sample of the machine, one process (this one)
// and its working folder's disk: at SERVER_METRICS_INTERVAL=1 the sampler
// spends this once a second, beside the clients.
func BenchmarkSample(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	s, _, err := Host([]int{ln.Addr().(*net.TCPAddr).Port})
	if err != nil || len(s.readers) < 2 {
		b.Fatal(err, s.Sources())
	}
	sm := s.Start(context.Background())
	b.ReportAllocs()
	for b.Loop() {
		sm.sample(true)
	}
	sm.Stop()
}

// BenchmarkHost is finding the processes behind a port, once a phase.
func BenchmarkHost(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	for b.Loop() {
		if _, _, err := Host([]int{ln.Addr().(*net.TCPAddr).Port}); err != nil {
			b.Fatal(err)
		}
	}
}
