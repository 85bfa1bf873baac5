package runner

import (
	"fmt"

	"github.com/tsbench/tsbench/adapters"
)

// SizeCheck says in one line how much the run writes, and refuses a run
// whose embedded database cannot fit the free space of its disk: found out
// after an hour, it costs the hour and fills the disk. The line is returned
// with the refusal, for a dry run that shows both.
func SizeCheck(drv *adapters.Driver, p *Plan) (string, error) {
	if p.Track != nil {
		return p.trackSize(), nil
	}
	points := p.Size()
	if points == 0 {
		return "Size: this run writes nothing", nil
	}
	line := fmt.Sprintf("Size: this run writes %.0f points (%d rows a device, %d devices written, %d sensors)", points, p.RowsPerDevice, p.Schema.WrittenDevices(), len(p.Schema.Sensors))
	if drv.Footprint == nil {
		return line, nil
	}
	need, free, where, err := drv.Footprint(p.Config, points)
	if err != nil {
		return line + fmt.Sprintf(", about %s in %s (free space unknown: %v)", bytesText(need), where, err), nil
	}
	line += fmt.Sprintf(", about %s in %s (%s free)", bytesText(need), where, bytesText(float64(free)))
	if need > float64(free) {
		return line, fmt.Errorf("the run needs about %s for %s but only %s are free there (valid: fewer points — LOOP, DEVICE_NUMBER, SENSOR_NUMBER — or a file on a larger disk)", bytesText(need), where, bytesText(float64(free)))
	}
	return line, nil
}

func bytesText(b float64) string {
	for _, u := range []string{"B", "KB", "MB", "GB", "TB", "PB"} {
		if b < 1000 {
			return fmt.Sprintf("%.3g %s", b, u)
		}
		b /= 1000
	}
	return fmt.Sprintf("%.3g EB", b)
}
