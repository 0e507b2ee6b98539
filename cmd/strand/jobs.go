package main

import (
	"context"
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

// The job commands are requests to the HTTP API of the `strand run` that
// runs the job, found in the job registry unless --http names it.

// httpFlag is the job commands' --http.
type httpFlag struct {
	HTTP string `name:"http" help:"The HTTP address of the strand run to ask (default: the one the job registry names)." placeholder:"ADDR"`
}

type jobsCmd struct {
	httpFlag
}

func (*jobsCmd) Help() string {
	return "Lists the jobs of every strand run --http in the job registry ($STRAND_HOME/jobs), or of the one at --http."
}

func (c *jobsCmd) Run(std *stdio) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if code := listJobs(ctx, c.HTTP, std.out, std.errOut); code != 0 {
		return exitStatus(code)
	}
	return nil
}

type savepointCmd struct {
	Job string `arg:"" name:"jobid" help:"The job's id, or a unique prefix of at least four characters."`
	Dir string `help:"Directory to write the savepoint under (default: the job's <state-dir>/savepoints)." placeholder:"DIR"`
	httpFlag
}

func (*savepointCmd) Help() string { return "Prints the savepoint's path." }

func (c *savepointCmd) Run(std *stdio) error {
	return jobRequest("savepoint", c.Job, c.HTTP, c.Dir, std, func(ctx context.Context, cl *session.Client, id, dir string) (string, error) {
		return cl.Savepoint(ctx, id, dir)
	})
}

type stopCmd struct {
	Job       string `arg:"" name:"jobid" help:"The job's id, or a unique prefix of at least four characters."`
	Savepoint string `help:"Directory to write the final savepoint under (default: the job's <state-dir>/savepoints)." placeholder:"DIR"`
	Drain     bool   `help:"Advance event time to the end first, so that every window fires and commits before the savepoint."`
	httpFlag
}

func (*stopCmd) Help() string { return "Prints the final savepoint's path." }

func (c *stopCmd) Run(std *stdio) error {
	return jobRequest("stop", c.Job, c.HTTP, c.Savepoint, std, func(ctx context.Context, cl *session.Client, id, dir string) (string, error) {
		return cl.Stop(ctx, id, dir, c.Drain)
	})
}

// jobRequest finds job id's API and makes the request, which returns a
// savepoint's path.
func jobRequest(cmd, id, addr, dir string, std *stdio, req func(context.Context, *session.Client, string, string) (string, error)) error {
	fail := func(err error) error {
		fmt.Fprintf(std.errOut, "strand %s: %v\n", cmd, err)
		return exitStatus(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c := &session.Client{Addr: addr}
	if c.Addr == "" {
		reg, err := session.DefaultRegistry()
		if err == nil {
			var e session.Entry
			e, err = reg.Find(id)
			id, c.Addr = e.ID, e.HTTP
		}
		if err != nil {
			return fail(err)
		}
	}
	// The server resolves relative paths against its own directory.
	if dir != "" {
		var err error
		if dir, err = filepath.Abs(dir); err != nil {
			return fail(err)
		}
	}
	path, err := req(ctx, c, id, dir)
	if err != nil {
		return fail(err)
	}
	fmt.Fprintln(std.out, path)
	return nil
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
