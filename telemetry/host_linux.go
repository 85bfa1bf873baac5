package telemetry

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
)

// Host is a sampler of this machine (its CPU and memory), of the
// processes that listen on the given TCP ports here (the database server
// when it runs on this machine) and of the processes pids (tsbench itself,
// where the database is embedded in it). Ports no process listens on are
// named in the notes; the machine is sampled all the same.
func Host(ports []int, pids ...int) (*Sampler, []string, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return nil, nil, fmt.Errorf("read /proc: %w", err)
	}
	s := &Sampler{readers: []Reader{machine{fs}}}
	for _, pid := range pids {
		comm := ""
		if p, err := fs.Proc(pid); err == nil {
			comm, _ = p.Comm()
		}
		s.readers = append(s.readers, process{fs: fs, pid: pid, label: fmt.Sprintf("process %d (%s)", pid, comm)})
	}
	if len(ports) == 0 {
		return s, nil, nil
	}
	listening, err := Listeners(fs, ports)
	if err != nil {
		return s, []string{fmt.Sprintf("the server's processes were not found (%v): only the machine is sampled", err)}, nil
	}
	var notes []string
	for _, port := range ports {
		found := false
		for _, pid := range listening[port] {
			found = true
			if !slices.ContainsFunc(s.readers, func(r Reader) bool { p, ok := r.(process); return ok && p.pid == pid }) {
				comm := ""
				if p, err := fs.Proc(pid); err == nil {
					comm, _ = p.Comm()
				}
				s.readers = append(s.readers, process{fs: fs, pid: pid, label: fmt.Sprintf("process %d (%s, port %d)", pid, comm, port)})
			}
		}
		if !found {
			notes = append(notes, fmt.Sprintf("no process of this machine listens on port %d: the server is elsewhere, or not visible to this user; its process is not sampled", port))
		}
	}
	return s, notes, nil
}

// Listeners finds the processes that listen on each port (TCP, IPv4 or
// IPv6), by the socket inodes /proc/net/tcp lists and the processes' open
// files.
func Listeners(fs procfs.FS, ports []int) (map[int][]int, error) {
	const listen = 10 // TCP_LISTEN in /proc/net/tcp's st column
	inodes := map[uint64]int{}
	for _, read := range []func() (procfs.NetTCP, error){fs.NetTCP, fs.NetTCP6} {
		lines, err := read()
		if err != nil {
			continue // no IPv6, for one
		}
		for _, l := range lines {
			if l.St == listen && slices.Contains(ports, int(l.LocalPort)) {
				inodes[l.Inode] = int(l.LocalPort)
			}
		}
	}
	if len(inodes) == 0 {
		return map[int][]int{}, nil
	}
	procs, err := fs.AllProcs()
	if err != nil {
		return nil, err
	}
	out := map[int][]int{}
	for _, p := range procs {
		fds, err := p.FileDescriptorTargets()
		if err != nil {
			continue // gone, or another user's
		}
		for _, fd := range fds {
			inode, ok := strings.CutPrefix(fd, "socket:[")
			if !ok {
				continue
			}
			n, err := strconv.ParseUint(strings.TrimSuffix(inode, "]"), 10, 64)
			if port, ok := inodes[n]; err == nil && ok && !slices.Contains(out[port], p.PID) {
				out[port] = append(out[port], p.PID)
			}
		}
	}
	for _, pids := range out {
		sort.Ints(pids)
	}
	return out, nil
}

// machine is the whole machine: its CPU time by kind over every CPU, and
// the memory in use.
type machine struct{ fs procfs.FS }

func (machine) Name() string { return "machine" }

func (machine) Figures() []Series {
	return []Series{
		{Name: "CPU user", Unit: "s", Counter: true},
		{Name: "CPU system", Unit: "s", Counter: true},
		{Name: "CPU iowait", Unit: "s", Counter: true},
		{Name: "CPU steal", Unit: "s", Counter: true},
		{Name: "memory used", Unit: "bytes"},
	}
}

func (m machine) Read(context.Context) ([]float64, error) {
	st, err := m.fs.Stat()
	if err != nil {
		return nil, err
	}
	mi, err := m.fs.Meminfo()
	if err != nil {
		return nil, err
	}
	if mi.MemTotalBytes == nil || mi.MemAvailableBytes == nil {
		return nil, fmt.Errorf("/proc/meminfo has no MemTotal or MemAvailable")
	}
	c := st.CPUTotal
	return []float64{c.User + c.Nice, c.System + c.IRQ + c.SoftIRQ, c.Iowait, c.Steal, float64(*mi.MemTotalBytes - *mi.MemAvailableBytes)}, nil
}

// process is one server process: its CPU time, memory, threads and the
// bytes it made the disks read and write.
type process struct {
	fs    procfs.FS
	pid   int
	label string
}

func (p process) Name() string { return p.label }

func (process) Figures() []Series {
	return []Series{
		{Name: "CPU user", Unit: "s", Counter: true},
		{Name: "CPU system", Unit: "s", Counter: true},
		{Name: "resident memory", Unit: "bytes"},
		{Name: "threads", Unit: "threads"},
		{Name: "disk read", Unit: "bytes", Counter: true},
		{Name: "disk written", Unit: "bytes", Counter: true},
	}
}

func (p process) Read(context.Context) ([]float64, error) {
	pr, err := p.fs.Proc(p.pid)
	if err != nil {
		return nil, err
	}
	st, err := pr.Stat()
	if err != nil {
		return nil, fmt.Errorf("process %d: %w", p.pid, err)
	}
	io, err := pr.IO()
	if err != nil {
		return nil, fmt.Errorf("process %d: %w", p.pid, err)
	}
	const hz = 100 // USER_HZ: /proc's clock ticks, as procfs counts them
	return []float64{float64(st.UTime) / hz, float64(st.STime) / hz, float64(st.ResidentMemory()), float64(st.NumThreads),
		float64(io.ReadBytes), float64(io.WriteBytes)}, nil
}
