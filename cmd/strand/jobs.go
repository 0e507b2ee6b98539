package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/strandsql/strand/session"
)

// jobControl runs strand jobs, savepoint and stop: requests to the HTTP
// API of the `strand run` that runs the job, found in the registry unless
// --http names it.
func jobControl(cmd string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("strand "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("http", "", "the HTTP address of the strand run to ask (default: the one the job registry names)")
	var dir *string
	var drain *bool
	switch cmd {
	case "savepoint":
		dir = fs.String("dir", "", "directory to write the savepoint under (default: the job's <state-dir>/savepoints)")
	case "stop":
		dir = fs.String("savepoint", "", "directory to write the final savepoint under (default: the job's <state-dir>/savepoints)")
		drain = fs.Bool("drain", false, "advance event time to the end first, so that every window fires and commits before the savepoint")
	}
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return 2
	}
	want := 1
	if cmd == "jobs" {
		want = 0
	}
	if len(pos) != want {
		fmt.Fprintf(stderr, "strand %s: wrong number of arguments\n\n%s", cmd, usage)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if cmd == "jobs" {
		return listJobs(ctx, *addr, stdout, stderr)
	}

	id := pos[0]
	c := &session.Client{Addr: *addr}
	if c.Addr == "" {
		reg, err := session.DefaultRegistry()
		if err == nil {
			var e session.Entry
			e, err = reg.Find(id)
			id, c.Addr = e.ID, e.HTTP
		}
		if err != nil {
			fmt.Fprintf(stderr, "strand %s: %v\n", cmd, err)
			return 1
		}
	}
	// The server resolves relative paths against its own directory.
	if *dir != "" {
		if *dir, err = filepath.Abs(*dir); err != nil {
			fmt.Fprintf(stderr, "strand %s: %v\n", cmd, err)
			return 1
		}
	}
	var path string
	if cmd == "savepoint" {
		path, err = c.Savepoint(ctx, id, *dir)
	} else {
		path, err = c.Stop(ctx, id, *dir, *drain)
	}
	if err != nil {
		fmt.Fprintf(stderr, "strand %s: %v\n", cmd, err)
		return 1
	}
	fmt.Fprintln(stdout, path)
	return 0
}

// listJobs prints the jobs of the strand run at addr, or of every one in
// the registry.
func listJobs(ctx context.Context, addr string, stdout, stderr io.Writer) int {
	addrs := []string{addr}
	if addr == "" {
		reg, err := session.DefaultRegistry()
		var es []session.Entry
		if err == nil {
			es, err = reg.List()
		}
		if err != nil {
			fmt.Fprintf(stderr, "strand jobs: %v\n", err)
			return 1
		}
		addrs = addrs[:0]
		seen := map[string]bool{}
		for _, e := range es {
			if !seen[e.HTTP] {
				seen[e.HTTP] = true
				addrs = append(addrs, e.HTTP)
			}
		}
	}
	code := 0
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSTATUS\tSTARTED\tROWS IN\tROWS OUT\tLAST CHECKPOINT")
	for _, a := range addrs {
		jobs, err := (&session.Client{Addr: a}).Jobs(ctx)
		if err != nil {
			fmt.Fprintf(stderr, "strand jobs: %s: %v\n", a, err)
			code = 1
			continue
		}
		for _, j := range jobs {
			last := "-"
			if cp := j.LastCheckpoint; cp != nil {
				last = fmt.Sprintf("%d at %s", cp.ID, time.UnixMilli(cp.Time).Format(time.TimeOnly))
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\n", j.ID, j.Name, j.Status,
				time.UnixMilli(j.Start).Format(time.DateTime), j.RowsRead, j.RowsWritten, last)
		}
	}
	if err := tw.Flush(); err != nil {
		return 1
	}
	return code
}
