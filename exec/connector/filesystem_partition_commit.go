package connector

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/types"
)

// Partition commit, as Flink's filesystem sink has it: a partition is
// committed, here by writing an empty success file (_SUCCESS) into its
// directory, once its trigger says it is complete and after the
// checkpoint that made its files visible.
//
//   - partition-time: when the watermark of every sink subtask at the
//     checkpoint's barrier has passed the partition's time plus
//     sink.partition-commit.delay. The time is extracted from the
//     partition values with partition.time-extractor.timestamp-pattern
//     ($name stands for the value of partition column name; without a
//     pattern, the first partition value) as yyyy-MM-dd[ HH:mm:ss[.SSS]],
//     UTC as strand's timestamps are.
//   - process-time (the default): when the wall clock at the commit has
//     passed the partition's creation (its oldest file's modification
//     time) plus the delay. As a processing-time feature it does not
//     promise the same success files in every run.
//
// Each subtask hands its watermark over with its pending files at the
// barrier (checkpoint.SinkProgress); the commit takes their minimum, so
// the decision is the checkpoint's and a restore repeats it. A partition
// needs a visible file to be committed, and is committed once: rows that
// reach it later add files beside the success file, as in Flink. At the
// end of a bounded input every partition is committed. Only the
// success-file policy exists: metastore needs a Hive metastore and custom
// a Java class, so they are refused.
type partitionCommit struct {
	procTime bool
	delay    int64  // milliseconds
	success  string // the success file's name
	pattern  string // partition.time-extractor.timestamp-pattern; "" for the first value
}

var commitKeys = []string{
	"sink.partition-commit.trigger", "sink.partition-commit.delay", "sink.partition-commit.policy.kind",
	"sink.partition-commit.success-file.name", "partition.time-extractor.kind", "partition.time-extractor.timestamp-pattern",
	"sink.rolling-policy.rollover-interval", "sink.rolling-policy.check-interval",
}

// parseCommit reads the partition-commit options; nil when no policy is
// set, as Flink commits no partition without one.
func parseCommit(o *opts) (*partitionCommit, error) {
	trigger, err := o.choice("sink.partition-commit.trigger", "process-time", "process-time", "partition-time")
	if err != nil {
		return nil, err
	}
	pc := &partitionCommit{procTime: trigger == "process-time", success: o.str("sink.partition-commit.success-file.name", "_SUCCESS"),
		pattern: o.str("partition.time-extractor.timestamp-pattern", "")}
	if v, ok := o.get("sink.partition-commit.delay"); ok {
		d, err := types.ParseDuration(v)
		if err != nil || d < 0 {
			return nil, badValue("sink.partition-commit.delay", v, "must be a duration such as '1 min'")
		}
		pc.delay = d.Milliseconds()
	}
	if v, ok := o.get("partition.time-extractor.kind"); ok && v != "default" {
		return nil, badValue("partition.time-extractor.kind", v, "a custom extractor is a Java class; strand has 'default' (with 'partition.time-extractor.timestamp-pattern')")
	}
	if pc.success == "" || strings.ContainsAny(pc.success, `/\`) {
		return nil, badValue("sink.partition-commit.success-file.name", pc.success, "must be a file name")
	}
	kinds, ok := o.get("sink.partition-commit.policy.kind")
	if !ok {
		return nil, nil
	}
	for _, k := range strings.Split(kinds, ",") {
		switch strings.TrimSpace(k) {
		case "success-file":
		case "metastore":
			return nil, badValue("sink.partition-commit.policy.kind", kinds, "'metastore' commits partitions to a Hive metastore, which strand has none of; use 'success-file'")
		case "custom":
			return nil, badValue("sink.partition-commit.policy.kind", kinds, "a custom policy is a Java class; strand has 'success-file'")
		default:
			return nil, badChoice("sink.partition-commit.policy.kind", kinds, "success-file")
		}
	}
	return pc, nil
}

// checkCommit checks the partition-commit options against the table's
// partitions.
func checkCommit(pc *partitionCommit, parts []string) error {
	if pc == nil {
		return nil
	}
	if len(parts) == 0 {
		return &OptionError{Key: "sink.partition-commit.policy.kind", Msg: "option 'sink.partition-commit.policy.kind' commits partitions: the table needs PARTITIONED BY"}
	}
	for rest := pc.pattern; ; {
		i := strings.IndexByte(rest, '$')
		if i < 0 {
			return nil
		}
		rest = rest[i+1:]
		found := false
		for _, p := range parts {
			found = found || strings.HasPrefix(rest, p)
		}
		if !found {
			return badValue("partition.time-extractor.timestamp-pattern", pc.pattern, fmt.Sprintf("$ must name a partition column (%s)", strings.Join(parts, ", ")))
		}
	}
}

// partTime extracts the time of the partition in directory rel (k=v/...).
func (pc *partitionCommit) partTime(rel string, parts []string) (int64, error) {
	segs := strings.Split(filepath.ToSlash(rel), "/")
	vals := make([]string, len(segs))
	for i, s := range segs {
		_, v, _ := strings.Cut(s, "=")
		vals[i] = unescapePart(v)
	}
	text := vals[0]
	if pc.pattern != "" {
		text = pc.pattern
		for i, p := range parts {
			if i < len(vals) {
				text = strings.ReplaceAll(text, "$"+p, vals[i])
			}
		}
	}
	ms, ok := types.ParseTimestamp(text)
	if !ok {
		return 0, fmt.Errorf("filesystem sink: partition %s: its time '%s' is no timestamp yyyy-MM-dd[ HH:mm:ss] (see 'partition.time-extractor.timestamp-pattern')", rel, text)
	}
	return ms, nil
}

// progressOf returns the lowest watermark of pending's progress entries
// when they are every subtask's.
func progressOf(pending []checkpoint.PendingFile) (int64, bool) {
	wm, of := int64(math.MaxInt64), 0
	seen := map[int]bool{}
	for _, p := range pending {
		if p.Progress != nil {
			seen[p.Subtask] = true
			of = p.Progress.Of
			wm = min(wm, p.Progress.Watermark)
		}
	}
	return wm, of > 0 && len(seen) == of
}

// commitPartitions writes the success file of every partition whose
// trigger is due at watermark wm; with all, of every partition (the end
// of the input).
func (s *fileSink) commitPartitions(wm int64, all bool) error {
	pc := s.cfg.commit
	dirs, err := s.dataDirs()
	if err != nil {
		return fmt.Errorf("filesystem sink: %w", err)
	}
	root := filepath.Clean(s.cfg.path)
	now := time.Now()
	for _, d := range dirs {
		rel, err := filepath.Rel(root, d)
		if err != nil || rel == "." || strings.Count(rel, string(filepath.Separator))+1 != len(s.parts) || s.partDone(d) {
			continue
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			return fmt.Errorf("filesystem sink: %w", err)
		}
		var oldest time.Time
		files, done := 0, false
		for _, e := range entries {
			switch name := e.Name(); {
			case name == pc.success:
				done = true
			case !hidden(name) && !e.IsDir():
				files++
				if fi, err := e.Info(); err == nil && (oldest.IsZero() || fi.ModTime().Before(oldest)) {
					oldest = fi.ModTime()
				}
			}
		}
		if done {
			s.markDone(d)
			continue
		}
		if files == 0 {
			continue
		}
		if !all {
			if pc.procTime {
				if now.Sub(oldest).Milliseconds() < pc.delay {
					continue
				}
			} else {
				t, err := pc.partTime(rel, s.parts)
				if err != nil {
					return err
				}
				if wm <= t+pc.delay {
					continue
				}
			}
		}
		f, err := os.OpenFile(filepath.Join(d, pc.success), os.O_WRONLY|os.O_CREATE, 0o644)
		if err == nil {
			err = f.Close()
		}
		if err != nil {
			return fmt.Errorf("filesystem sink: committing partition %s: %w", rel, err)
		}
		if err := syncDir(d); err != nil {
			return err
		}
		s.markDone(d)
	}
	return nil
}

func (s *fileSink) partDone(dir string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done[dir]
}

func (s *fileSink) markDone(dir string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done == nil {
		s.done = map[string]bool{}
	}
	s.done[dir] = true
}

// uncommit removes the success file of the partition in dir, whose files
// a restore has just removed: the replay writes them again, and commits
// the partition again when it is due.
func (s *fileSink) uncommit(dir string) error {
	if s.cfg.commit == nil {
		return nil
	}
	s.mu.Lock()
	delete(s.done, dir)
	s.mu.Unlock()
	if err := os.Remove(filepath.Join(dir, s.cfg.commit.success)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("filesystem sink: %w", err)
	}
	return nil
}

// closed counts a subtask's writer closed at the end of the job; once all
// n are, every partition is complete.
func (s *fileSink) closed(n int) error {
	s.mu.Lock()
	s.nclosed++
	last := s.nclosed == n
	s.mu.Unlock()
	if !last || s.cfg.commit == nil {
		return nil
	}
	return s.commitPartitions(math.MaxInt64, true)
}
