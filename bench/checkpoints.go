package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"time"
)

// CheckpointConfig is what `strand bench checkpoints` measures: each query
// without checkpoints and with exactly-once checkpoints at each interval,
// the runs alternating (none, then each interval, round after round), so
// that a busy machine slows all of them alike.
type CheckpointConfig struct {
	Queries     []string
	Events      int64
	Parallelism int
	Intervals   []time.Duration // besides none
	Rounds      int
	Memory      int64 // managed memory in bytes (memory.managed.size); 0: the default
}

// Checkpoints runs cfg and prints, per query and interval, the events per
// CPU-second of every round, their median, the change against the median
// without checkpoints, and the checkpoints' median and largest duration and
// the median bytes a checkpoint wrote, and the windows spilled in all
// rounds: a run that spilled is slower for it.
func Checkpoints(ctx context.Context, cfg CheckpointConfig, out io.Writer) error {
	if cfg.Rounds < 1 || len(cfg.Intervals) == 0 {
		return errors.New("checkpoints: at least one round and one interval")
	}
	if cfg.Parallelism == 0 {
		cfg.Parallelism = runtime.NumCPU()
	}
	modes := append([]time.Duration{0}, cfg.Intervals...)
	fmt.Fprintf(out, "%-5s %-8s %-30s %8s %8s %6s %9s %9s %10s %6s\n", "query", "interval", "events/cpu-s per round", "median", "change", "ckpts", "med_ms", "max_ms", "med_bytes", "spills")
	for _, q := range cfg.Queries {
		per := make([][]Result, len(modes))
		for range cfg.Rounds {
			for i, iv := range modes {
				r, err := runQuery(ctx, q, Config{Events: cfg.Events, Parallelism: cfg.Parallelism, Interval: iv, Memory: cfg.Memory})
				if err != nil {
					return fmt.Errorf("%s at %v: %w", q, iv, err)
				}
				per[i] = append(per[i], r)
			}
		}
		var none float64
		for i, rs := range per {
			var rates, durs, sizes []float64
			ckpts, spills := 0, int64(0)
			for _, r := range rs {
				rates = append(rates, r.EventsPerCPUS)
				spills += r.Spills
				for _, c := range r.History {
					durs = append(durs, float64(c.Duration.Milliseconds()))
					sizes = append(sizes, float64(c.Incremental))
				}
				ckpts += len(r.History)
			}
			med := median(rates)
			name, change := "none", ""
			if i == 0 {
				none = med
			} else {
				name = modes[i].String()
				change = fmt.Sprintf("%+.1f%%", 100*(med-none)/none)
			}
			list := ""
			for j, v := range rates {
				if j > 0 {
					list += " "
				}
				list += millions(v)
			}
			mx := 0.0
			if len(durs) > 0 {
				mx = slices.Max(durs)
			}
			fmt.Fprintf(out, "%-5s %-8s %-30s %8s %8s %6s %9.0f %9.0f %10s %6d\n", q, name, list, millions(med), change,
				strconv.Itoa(ckpts/len(rs)), median(durs), mx, strconv.FormatFloat(median(sizes), 'f', 0, 64), spills)
		}
	}
	return nil
}

// median of vs; 0 for none.
func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(vs))
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}
