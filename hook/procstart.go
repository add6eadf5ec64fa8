package hook

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// ProcessStart returns when the host started this hook process, as the kernel records it
// (Linux: /proc/self/stat and /proc/uptime), or false where that cannot be read. The host
// forks the hook processes of one event together, before any of them answers; on a loaded
// machine the program itself may get going only after another has answered, so its own
// clock cannot tell a second delivery of an event from a later event with the same input.
func ProcessStart(clock func() time.Time) (time.Time, bool) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return time.Time{}, false
	}
	uptime, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return time.Time{}, false
	}
	// The clock is read right after the uptime, not before the files: a process
	// descheduled between the two readings would place its own start too early, and take
	// a later event with the same input (a quick real stop) for a second delivery.
	return processStart(clock(), string(stat), string(uptime))
}

// ticks is the kernel's clock tick for user space (USER_HZ), 100 on Linux's architectures.
const ticks = 100

// processStart computes the start from the contents of /proc/self/stat and /proc/uptime:
// the earliest time it can have been, since both count in ticks of 10 ms. A second delivery
// of an event was started before the first one's decision, so the earliest start tells it
// apart however quickly the first answered; a later event with the same input cannot
// follow a decision by less than a model call, far more than the tick.
func processStart(now time.Time, stat, uptime string) (time.Time, bool) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return time.Time{}, false
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 20 {
		return time.Time{}, false
	}
	start, err := strconv.ParseUint(f[19], 10, 64) // field 22, starttime, in ticks since boot
	if err != nil {
		return time.Time{}, false
	}
	up, _, _ := strings.Cut(strings.TrimSpace(uptime), " ")
	secs, err := strconv.ParseFloat(up, 64)
	if err != nil {
		return time.Time{}, false
	}
	age := time.Duration(secs*float64(time.Second)) - time.Duration(start)*time.Second/ticks
	return now.Add(-age).Add(-time.Second / ticks).Truncate(time.Millisecond), true
}
