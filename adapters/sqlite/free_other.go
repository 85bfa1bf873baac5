//go:build !linux && !darwin && !freebsd

package sqlite

import "errors"

// freeBytes is unknown here: the run is not refused for want of space.
func freeBytes(string) (int64, error) {
	return 0, errors.New("free space unknown on this platform")
}
