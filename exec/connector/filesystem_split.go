package connector

import (
	"bufio"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/strandsql/strand/exec"
)

// A large file is read as several splits, byte ranges of
// source.split-size each, so that every subtask reads a part of it. A line
// belongs to the range in which it starts (Hadoop's rule for text
// files): a reader starts at the first line that starts at or after its
// range's start and stops before the first that starts at or after its
// end, so every line is read once whatever the ranges' sizes.
//
// The ranges depend only on the file's size when the job lists its splits
// and on source.split-size, never on the parallelism, so the lateness each
// range decides (against its own watermark, as for any split) is the same
// at any parallelism. The last range is open-ended, so lines appended
// later are read by it. A file of one range keeps its path as its split
// ID; the ranges of a larger one are path@start-end (the last path@start-),
// so a restore whose file has since grown past a range boundary, or under
// another split size, finds split IDs the checkpoint does not have and is
// refused instead of reading lines twice.

// defaultSplitSize is source.split-size's default: a 1 GB file is 128
// ranges, a 50 MB one 6, enough to share it evenly among a few subtasks.
const defaultSplitSize = 8 << 20

// fileBuffer is the read buffer of a whole file's reader.
const fileBuffer = 1 << 20

// rangeBuffer is the read buffer of a range's reader; a subtask has all
// its ranges open at once, so it is smaller than a whole file's.
const rangeBuffer = 256 << 10

// peekBuffer is the read buffer of a reader that reads a split's first
// rows only (exec.ReadOptions.Peek): a subtask of an InOrder source peeks
// at each of its splits when it opens them, and a directory of many small
// files made as many 1 MB buffers, zeroed and dropped, for a few lines
// each (5000 files of 20 lines: 41 s and 2.5 GB instead of 5 s and
// 165 MB).
const peekBuffer = 16 << 10

// ranges appends the splits of the file at path: one for a file up to the
// split size (or not a regular file), else one per range.
func (s *fileSource) ranges(splits []exec.Split, path string, fi fs.FileInfo) []exec.Split {
	size, n := fi.Size(), int64(1)
	if fi.Mode().IsRegular() && size > s.cfg.splitSize {
		n = (size + s.cfg.splitSize - 1) / s.cfg.splitSize
	}
	if n == 1 {
		return append(splits, exec.Split{ID: path, Index: len(splits)})
	}
	for k := range n {
		sp := exec.Split{Index: len(splits), Start: k * s.cfg.splitSize, End: (k + 1) * s.cfg.splitSize}
		if k == n-1 {
			sp.End = 0
		}
		sp.ID = path + rangeSuffix(sp)
		splits = append(splits, sp)
	}
	return splits
}

// rangeSuffix is what a range's split ID adds to its file's path.
func rangeSuffix(sp exec.Split) string {
	end := ""
	if sp.End > 0 {
		end = strconv.FormatInt(sp.End, 10)
	}
	return "@" + strconv.FormatInt(sp.Start, 10) + "-" + end
}

// splitPath is the path of the file a split reads.
func splitPath(sp exec.Split) string {
	if sp.Start == 0 && sp.End == 0 {
		return sp.ID
	}
	return strings.TrimSuffix(sp.ID, rangeSuffix(sp))
}

// skipToLine consumes the rest of the line that a range's start falls
// in: the range's first line starts after the first '\n' at or after
// start-1. Until that is found, Offset stays the zero offset (the range's
// start), so a checkpoint taken meanwhile resumes with the skip. A file
// that ends first has no line starting in the range (io.EOF), unless it
// may still grow (errWait).
func (r *fileReader) skipToLine() error {
	for {
		s, err := r.r.ReadSlice('\n')
		r.skipped += int64(len(s))
		switch {
		case err == nil:
			r.skip = false
			r.pos = r.start - 1 + r.skipped
			return nil
		case err == bufio.ErrBufferFull:
			continue
		case err != io.EOF:
			return err
		}
		st, err := r.settle(r.start - 1 + r.skipped)
		switch {
		case err != nil:
			return err
		case st == lineWait:
			return errWait
		case st == lineDone:
			return io.EOF
		}
	}
}

// lineNumber is the 1-based line number of the line last taken. A range
// that does not start the file counts the line breaks before it, which is
// done only for an error's message.
func (r *fileReader) lineNumber() int64 {
	if r.start == 0 {
		return r.line
	}
	f, err := os.Open(r.path)
	if err != nil {
		return 0
	}
	defer f.Close()
	br := bufio.NewReaderSize(io.LimitReader(f, r.lineAt), 1<<20)
	lines := int64(1)
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
			lines++
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return lines
		}
	}
}
