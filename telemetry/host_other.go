//go:build !linux

package telemetry

// Host samples nothing where there is no /proc: the run says so once.
func Host(ports []int, pids ...int) (*Sampler, []string, error) {
	return &Sampler{}, []string{"host metrics are read from /proc, which only Linux has: none are sampled"}, nil
}

// AddDisk samples nothing where there is no /proc.
func (s *Sampler) AddDisk(folder string) string { return "" }
