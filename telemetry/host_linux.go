package telemetry

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
	"golang.org/x/sys/unix"
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
				s.readers = append(s.readers, process{fs: fs, pid: pid, port: port, label: fmt.Sprintf("process %d (%s, port %d)", pid, comm, port)})
			}
		}
		if !found {
			notes = append(notes, fmt.Sprintf("no process of this machine listens on port %d: the server is elsewhere, or not visible to this user; its process is not sampled", port))
		}
	}
	return s, disks(s, notes), nil
}

// disks adds a source for each block device that holds the working
// folder of a process found behind a port (where IoTDB and Elasticsearch
// keep their data below, as the provisioning scripts start them).
func disks(s *Sampler, notes []string) []string {
	for _, r := range slices.Clone(s.readers) {
		if p, ok := r.(process); ok && p.port > 0 {
			cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", p.pid))
			if err != nil {
				notes = append(notes, fmt.Sprintf("the disk of %s is not sampled: its working folder cannot be read (%v)", p.label, err))
				continue
			}
			if n := s.AddDisk(cwd); n != "" {
				notes = append(notes, n)
			}
		}
	}
	return notes
}

// AddDisk adds a source for the block device that holds folder, unless
// one is sampled already: its traffic is the server's storage (and its
// neighbours' on the same device). A folder on no block device (tmpfs,
// overlay) is the note it returns.
func (s *Sampler) AddDisk(folder string) string {
	var st unix.Stat_t
	if err := unix.Stat(folder, &st); err != nil {
		return fmt.Sprintf("the disk of %s is not sampled: %v", folder, err)
	}
	bfs, err := blockdevice.NewDefaultFS()
	if err != nil {
		return fmt.Sprintf("disk traffic is not sampled: %v", err)
	}
	stats, err := bfs.ProcDiskstats()
	if err != nil {
		return fmt.Sprintf("disk traffic is not sampled: %v", err)
	}
	major, minor := unix.Major(st.Dev), unix.Minor(st.Dev)
	i := slices.IndexFunc(stats, func(d blockdevice.Diskstats) bool { return d.MajorNumber == major && d.MinorNumber == minor })
	if i < 0 {
		return fmt.Sprintf("the disk of %s is not sampled: it is on device %d:%d, which is no block device (tmpfs, overlay)", folder, major, minor)
	}
	if slices.ContainsFunc(s.readers, func(r Reader) bool { d, ok := r.(disk); return ok && d.major == major && d.minor == minor }) {
		return ""
	}
	s.readers = append(s.readers, disk{fs: bfs, major: major, minor: minor, label: fmt.Sprintf("disk %s (%s)", stats[i].DeviceName, folder)})
	return ""
}

// disk is one block device: the bytes read from and written to it, and the
// time it was busy (its rate is the share of the time the device had I/O
// in flight, 1 when always).
type disk struct {
	fs           blockdevice.FS
	major, minor uint32
	label        string
}

func (d disk) Name() string { return d.label }

func (disk) Figures() []Series {
	return []Series{
		{Name: "disk read", Unit: "bytes", Counter: true},
		{Name: "disk written", Unit: "bytes", Counter: true},
		{Name: "disk busy", Unit: "s", Counter: true},
	}
}

func (d disk) Read(context.Context) ([]float64, error) {
	stats, err := d.fs.ProcDiskstats()
	if err != nil {
		return nil, err
	}
	for _, st := range stats {
		if st.MajorNumber == d.major && st.MinorNumber == d.minor {
			const sector = 512 // /proc/diskstats counts 512-byte sectors, whatever the device's
			return []float64{float64(st.ReadSectors) * sector, float64(st.WriteSectors) * sector, float64(st.IOsTotalTicks) / 1000}, nil
		}
	}
	return nil, fmt.Errorf("device %d:%d is gone from /proc/diskstats", d.major, d.minor)
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
	port  int // the port it was found behind; 0 for a pid given
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
