package connector

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/strandsql/strand/checkpoint"
)

// Two-phase commit of the filesystem sink. At a barrier the writer closes
// and syncs its hidden file and hands it over as pending, naming the
// visible file it will become: part-<job>-<run>-<subtask>-<n>-ck<id>.<ext>,
// id being the checkpoint that commits it. When the checkpoint completes
// the coordinator renames pending files into place. A restore from
// checkpoint id commits id's pending files, then deletes the job's hidden
// leftovers and the job's visible files committed by checkpoints newer than
// id: the replay from id writes those rows again.

// PreCommit implements exec.PreCommitter. It hands over the files
// finished since the last barrier together with those handed over before
// and not committed yet: a checkpoint that was abandoned must not take its
// files with it, so the next one commits them.
func (w *fileWriter) PreCommit(id int64) ([]checkpoint.PendingFile, error) {
	if err := w.settle(); err != nil {
		return nil, err
	}
	for _, p := range w.pending {
		base := strings.TrimSuffix(filepath.Base(p)[1:], ".inprogress")
		final := strings.TrimSuffix(base, w.ext) + fmt.Sprintf("-ck%d", id) + w.ext
		size, sum, err := checksum(p)
		if err != nil {
			return nil, err
		}
		w.handed = append(w.handed, checkpoint.PendingFile{Subtask: w.subtask, Tmp: p, Final: filepath.Join(w.dir, final), Size: size, CRC32C: sum})
	}
	w.pending = nil
	kept := w.handed[:0]
	for _, p := range w.handed {
		if !w.sink.takeCommitted(p.Tmp) {
			kept = append(kept, p)
		}
	}
	w.handed = kept
	return slices.Clone(w.handed), nil
}

// checksum reads a finished file back, as it is on disk, for the
// checkpoint to record its size and CRC32C: a restore commits it only if
// it still holds exactly that.
func checksum(path string) (int64, uint32, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, fmt.Errorf("filesystem sink: %w", err)
	}
	defer f.Close()
	h := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, 0, fmt.Errorf("filesystem sink: %w", err)
	}
	return n, h.Sum32(), nil
}

// takeCommitted reports whether the hidden file tmp has been made visible,
// forgetting it then: only its writer asks, once, so that the set holds
// only what writers have yet to learn instead of growing with every
// checkpoint.
func (s *fileSink) takeCommitted(tmp string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.committed[tmp] {
		return false
	}
	delete(s.committed, tmp)
	return true
}

// Commit implements exec.Committer.
func (s *fileSink) Commit(pending []checkpoint.PendingFile) error {
	s.mu.Lock()
	if s.committed == nil {
		s.committed = map[string]bool{}
	}
	for _, p := range pending {
		s.committed[p.Tmp] = true
	}
	s.mu.Unlock()
	dirs := map[string]bool{}
	for _, p := range pending {
		if p.Progress != nil {
			continue
		}
		err := os.Rename(p.Tmp, p.Final)
		if errors.Is(err, os.ErrNotExist) {
			if _, serr := os.Stat(p.Final); serr == nil {
				continue // committed before a crash
			}
			return fmt.Errorf("filesystem sink: pending file %s: %w", p.Tmp, os.ErrNotExist)
		}
		if err != nil {
			return fmt.Errorf("filesystem sink: %w", err)
		}
		dirs[filepath.Dir(p.Final)] = true
	}
	for d := range dirs {
		if err := syncDir(d); err != nil {
			return err
		}
	}
	if wm, ok := progressOf(pending); ok && s.cfg.commit != nil {
		return s.commitPartitions(wm, false)
	}
	return nil
}

// committedBy matches a visible part file of a checkpointing job and
// captures the checkpoint that committed it.
var committedBy = regexp.MustCompile(`-ck(\d+)\.[a-z]+$`)

// Recover implements exec.Committer.
func (s *fileSink) Recover(id int64, pending []checkpoint.PendingFile) error {
	if err := s.Commit(pending); err != nil {
		return err
	}
	dirs, err := s.dataDirs()
	if err != nil {
		return fmt.Errorf("filesystem sink: %w", err)
	}
	for _, d := range dirs {
		if err := s.recoverDir(d, id); err != nil {
			return err
		}
	}
	return nil
}

// recoverDir removes what the job's lineage left in dir after checkpoint
// id.
func (s *fileSink) recoverDir(dir string, id int64) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("filesystem sink: %w", err)
	}
	mine := "part-" + s.job + "-"
	removed, uncommitted := false, false
	for _, e := range entries {
		name := e.Name()
		var stale bool
		switch {
		case strings.HasPrefix(name, "."+mine) && strings.HasSuffix(name, ".inprogress"):
			stale = true
		case strings.HasPrefix(name, mine):
			if m := committedBy.FindStringSubmatch(name); m != nil {
				n, _ := strconv.ParseInt(m[1], 10, 64)
				stale = n > id
				uncommitted = uncommitted || stale
			}
		}
		if stale {
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("filesystem sink: %w", err)
			}
			removed = true
		}
	}
	if uncommitted {
		if err := s.uncommit(dir); err != nil {
			return err
		}
	}
	if removed {
		return syncDir(dir)
	}
	return nil
}

// Clean implements exec.Committer.
func (s *fileSink) Clean(lineage string, committed bool) error {
	entries, err := os.ReadDir(s.cfg.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("filesystem sink: %w", err)
	}
	mine := "part-" + lineage + "-"
	removed := false
	for _, e := range entries {
		name := e.Name()
		hidden := strings.HasPrefix(name, "."+mine) && strings.HasSuffix(name, ".inprogress")
		if !hidden && !(committed && strings.HasPrefix(name, mine) && committedBy.MatchString(name)) {
			continue
		}
		if err := os.Remove(filepath.Join(s.cfg.path, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("filesystem sink: %w", err)
		}
		removed = true
	}
	if removed {
		return syncDir(s.cfg.path)
	}
	return nil
}
