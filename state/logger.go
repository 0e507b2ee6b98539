package state

import (
	"fmt"
	"os"
	"strings"

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
type logger struct {
	fs  vfs.FS
	dir string
}

func (logger) Infof(string, ...any)             {}
func (logger) Errorf(format string, a ...any)   { pebble.DefaultLogger.Errorf(format, a...) }
func (l logger) Fatalf(format string, a ...any) { fatal(l.dir, fmt.Sprintf(format, a...)) }

// listener is the DB's EventListener: it reports background errors as
// Pebble does, unless the DB's directory is gone, and leaves corruption to
// the operation that met it.
func (l logger) listener() *pebble.EventListener {
	return &pebble.EventListener{
		BackgroundError: func(err error) {
			if _, serr := l.fs.Stat(l.dir); oserror.IsNotExist(serr) {
				fatal(l.dir, "the directory was removed while the job ran")
			}
			l.Errorf("background error: %s", err)
		},
		DataCorruption: func(pebble.DataCorruptionInfo) {},
	}
}

// fatal ends the process after one line on standard error naming the
// state store dir and what is wrong with it (its first line only: Pebble's
// errors may carry a stack trace after it).
func fatal(dir, msg string) {
	msg, _, _ = strings.Cut(msg, "\n")
	fmt.Fprintf(os.Stderr, "strand: state store %s: %s; exiting (the checkpoints already taken are kept: a new run of the job resumes from the latest)\n", dir, msg)
	os.Exit(1)
}
