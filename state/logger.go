package state

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/cockroachdb/errors/oserror"
	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// logger is the Logger and the EventListener of the Pebble DB in dir on
// fs. It drops Pebble's informational messages ("Found 0 WALs" on every
// open), which say nothing to a user of strand, and keeps its errors.
//
// Corruption that an operation meets (Pebble's DataCorruption event: a
// table that does not read, or is gone because the directory was
// removed) fails that operation, and with it the job, which restarts
// from its latest checkpoint into a new store: the store is scratch, so
// nothing is lost by going on. Pebble's default would end the process
// with the error's whole stack trace.
//
// A DB whose directory is gone cannot go on: Pebble retries a failed
// flush for ever while writes wait for it, so the job would hang, and
// nothing can wake those writes. Neither can a DB that Pebble finds in a
// state it calls fatal (Fatalf). Both end the process with one line that
// names the directory (fatal): like a kill, that keeps every checkpoint
// already taken, and the job's next run resumes from the latest.
//
// Any other background error (a flush or compaction that fails, as on a
// full disk) Pebble retries at once, for ever, until it succeeds. The
// first is logged; while they go on, one line every repeatEvery says how
// many there have been since when, and each retry waits (pause) so that a
// disk that stays full neither floods the log nor burns a core. The wait
// is taken where the retry creates its table (paced), not in the
// listener: Pebble calls BackgroundError holding the DB's mutex, which
// Metrics, a memtable rotation, Flush, Checkpoint and Close need. Writes
// wait meanwhile; once the flush succeeds the job goes on, having lost
// nothing.
type logger struct {
	fs  vfs.FS
	dir string
	// errorf writes an error line: Pebble's default logger's. every is
	// how often background errors that go on are logged: repeatEvery.
	errorf func(format string, a ...any)
	every  time.Duration
	mu     struct {
		sync.Mutex
		failures int       // background errors since the last success
		since    time.Time // the first of them
		logged   time.Time // when the last was logged
	}
}

// repeatEvery is how often background errors that go on are logged.
const repeatEvery = 10 * time.Second

func newLogger(fs vfs.FS, dir string) *logger {
	return &logger{fs: fs, dir: dir, errorf: pebble.DefaultLogger.Errorf, every: repeatEvery}
}

func (*logger) Infof(string, ...any)             {}
func (l *logger) Errorf(format string, a ...any) { l.errorf(format, a...) }
func (l *logger) Fatalf(format string, a ...any) { fatal(l.dir, fmt.Sprintf(format, a...)) }

// listener is the DB's EventListener: it reports background errors (see
// background) unless the DB's directory is gone, and leaves corruption to
// the operation that met it.
func (l *logger) listener() *pebble.EventListener {
	return &pebble.EventListener{
		BackgroundError: l.background,
		DataCorruption:  func(pebble.DataCorruptionInfo) {},
		FlushEnd: func(info pebble.FlushInfo) {
			if info.Err == nil {
				l.succeeded()
			}
		},
		CompactionEnd: func(info pebble.CompactionInfo) {
			if info.Err == nil {
				l.succeeded()
			}
		},
	}
}

// background reports a background error; paced pauses the retry that
// follows it.
func (l *logger) background(err error) {
	if _, serr := l.fs.Stat(l.dir); oserror.IsNotExist(serr) {
		fatal(l.dir, "the directory was removed while the job ran")
	}
	now := time.Now()
	l.mu.Lock()
	l.mu.failures++
	n, first := l.mu.failures, l.mu.failures == 1
	if first {
		l.mu.since = now
	}
	since := l.mu.since
	report := first || now.Sub(l.mu.logged) >= l.every
	if report {
		l.mu.logged = now
	}
	l.mu.Unlock()
	switch {
	case first:
		l.Errorf("background error: %s", err)
	case report:
		l.Errorf("background error, %d since %s: %s", n, since.Format(time.TimeOnly), err)
	}
}

// wait takes the pause after the background errors since the last
// success, if any.
func (l *logger) wait() {
	l.mu.Lock()
	n := l.mu.failures
	l.mu.Unlock()
	if n > 0 {
		time.Sleep(pause(n))
	}
}

// paced is the DB's FS: a flush or compaction, retried after a
// background error, first waits (logger.wait) where it creates its
// output, a table or blob file, having let go of the DB's mutex.
type paced struct {
	vfs.FS
	log *logger
}

func (p paced) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	if strings.HasSuffix(name, ".sst") || strings.HasSuffix(name, ".blob") {
		p.log.wait()
	}
	return p.FS.Create(name, category)
}

// Unwrap returns the FS paced wraps.
func (p paced) Unwrap() vfs.FS { return p.FS }

// succeeded records that a flush or compaction went through: the next
// background error is a new one.
func (l *logger) succeeded() {
	l.mu.Lock()
	l.mu.failures = 0
	l.mu.Unlock()
}

// pause is the wait after the nth background error in a row: 10 ms,
// doubling up to a second.
func pause(n int) time.Duration {
	return min(10*time.Millisecond<<min(n-1, 7), time.Second)
}

// fatal ends the process after one line on standard error naming the
// state store dir and what is wrong with it (its first line only: Pebble's
// errors may carry a stack trace after it).
func fatal(dir, msg string) {
	msg, _, _ = strings.Cut(msg, "\n")
	fmt.Fprintf(os.Stderr, "strand: state store %s: %s; exiting (the checkpoints already taken are kept: a new run of the job resumes from the latest)\n", dir, msg)
	os.Exit(1)
}
