package etcd

import (
	"fmt"
	"hash/crc32"
	"time"
)

// Schedule formats of Gardener's etcds, each with a minute and an hour to fill in
// (pkg/gardenlet/operation/botanist/etcd.go and pkg/operator/controller/garden/garden at Gardener
// v1.120.0): a shoot's etcds defragment every third day, the virtual garden's main etcd daily;
// full snapshots are daily.
const (
	EveryThirdDay = "%d %d */3 * *"
	Daily         = "%d %d * * *"
)

// Placement says where a schedule falls relative to the maintenance window.
type Placement int

const (
	// InWindow is a minute inside the window: Gardener's defragmentation.
	InWindow Placement = iota
	// HourBeforeWindow is a minute of the hour that ends 15 minutes before the window begins:
	// Gardener's full snapshot, taken before the maintenance that may roll the etcd.
	HourBeforeWindow
)

// maintenanceTimeLayout is Gardener's time of day in a maintenance window: HHMMSS and a UTC
// offset.
const maintenanceTimeLayout = "150405-0700"

// Schedule is the cron schedule format yields for an object whose daily maintenance window is
// begin..end (HHMMSS+HHMM, an end not after the begin crossing midnight), placed by a
// checksum of uid, as Gardener derives its etcd schedules (timewindow.DetermineSchedule in
// pkg/utils/timewindow/schedule.go at Gardener v1.120.0): each object gets its own minute, and
// the same one on every reconciliation. Without a window, or with the window that spans the
// whole day, the schedule is the time of day the object was created.
func Schedule(format, begin, end, uid string, created time.Time, placement Placement) (string, error) {
	if begin == "" || end == "" {
		return at(format, created.UTC()), nil
	}
	from, err := time.Parse(maintenanceTimeLayout, begin)
	if err != nil {
		return "", fmt.Errorf("maintenance window begin %q is not HHMMSS+HHMM: %w", begin, err)
	}
	to, err := time.Parse(maintenanceTimeLayout, end)
	if err != nil {
		return "", fmt.Errorf("maintenance window end %q is not HHMMSS+HHMM: %w", end, err)
	}
	from, to = dayTime(from), dayTime(to)
	if from.Equal(dayTime(time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC))) && to.Equal(dayTime(time.Date(0, 1, 1, 23, 59, 59, 0, time.UTC))) {
		return at(format, created.UTC()), nil // the window that is always open places nothing
	}
	sum := crc32.ChecksumIEEE([]byte(uid))
	switch placement {
	case HourBeforeWindow:
		return at(format, from.Add(-75*time.Minute+time.Duration(sum%60)*time.Minute)), nil
	default:
		if !to.After(from) {
			to = to.AddDate(0, 0, 1)
		}
		minutes := uint32(to.Sub(from).Minutes())
		if minutes == 0 {
			return "", fmt.Errorf("maintenance window %s-%s is shorter than a minute", begin, end)
		}
		return at(format, from.Add(time.Duration(sum%minutes)*time.Minute)), nil
	}
}

// dayTime is t's time of day in UTC on a fixed day, so that times of day compare and add.
func dayTime(t time.Time) time.Time {
	u := t.UTC()
	return time.Date(2000, 1, 1, u.Hour(), u.Minute(), u.Second(), 0, time.UTC)
}

// at fills the schedule format with t's minute and hour.
func at(format string, t time.Time) string { return fmt.Sprintf(format, t.Minute(), t.Hour()) }
