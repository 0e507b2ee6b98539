package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/planner"
	"github.com/strandsql/strand/session"
)

// checkCmd is strand check-savepoint: it verifies a savepoint and
// matches its state to each INSERT and SELECT of the files, compiled as
// strand run compiles them, without running anything.
type checkCmd struct {
	Savepoint string   `arg:"" help:"The savepoint directory (savepoint-...)."`
	Files     []string `arg:"" name:"file" help:"Query files, as strand run would run them."`
	Set       []string `help:"A session option, as SET 'key' = 'value' (repeatable)." placeholder:"KEY=VALUE" sep:"none"`
	Allow     bool     `name:"allow-non-restored-state" help:"Exit 0 even if some state cannot be mapped (strand run with this flag drops it)."`
}

func (*checkCmd) Help() string {
	return "Prints, for each INSERT and SELECT of the files, which operator, source and sink state maps, which operators start empty, and which state cannot be mapped and why; exits non-zero if any cannot, unless --allow-non-restored-state."
}

func (c *checkCmd) Run(std *stdio) error {
	if code := checkSavepoint(c, std.out, std.errOut); code != 0 {
		return exitStatus(code)
	}
	return nil
}

func checkSavepoint(c *checkCmd, stdout, stderr io.Writer) int {
	md, err := checkpoint.LoadSavepoint(c.Savepoint)
	if err != nil {
		fmt.Fprintf(stderr, "strand check-savepoint: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "savepoint %s: checkpoint %d of job %s, parallelism %d, strand %s\n", c.Savepoint, md.ID, md.Job, md.Parallelism, md.StrandVersion)

	sess := session.New(io.Discard, stderr)
	for _, kv := range c.Set {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			fmt.Fprintf(stderr, "strand: --set %q: want key=value\n", kv)
			return 2
		}
		sess.Config[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	unmapped, queries := 0, 0
	for _, file := range c.Files {
		b, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintf(stderr, "strand: %v\n", err)
			return 1
		}
		src := string(b)
		n, q, err := checkFile(sess, md, file, src, queries, stdout)
		if err != nil {
			fmt.Fprintln(stderr, planner.FormatError(file, src, err))
			return 1
		}
		unmapped, queries = unmapped+n, queries+q
	}
	switch {
	case queries == 0:
		fmt.Fprintln(stderr, "strand check-savepoint: the files have no INSERT or SELECT")
		return 1
	case unmapped > 0 && c.Allow:
		fmt.Fprintf(stdout, "state of %d uids cannot be mapped: strand run --allow-non-restored-state drops it\n", unmapped)
	case unmapped > 0:
		fmt.Fprintf(stdout, "state of %d uids cannot be mapped: strand run --from-savepoint refuses to start without --allow-non-restored-state\n", unmapped)
		return 1
	default:
		fmt.Fprintln(stdout, "all state maps")
	}
	return 0
}

// checkFile executes the file's DDL and SET statements and reports how
// md's state maps to the first query of the run (before is the number of
// queries of earlier files): the one strand run restores the savepoint
// into; later ones start without it. It returns the number of pieces of
// state that cannot be mapped and the number of queries.
func checkFile(sess *session.Session, md *checkpoint.Metadata, file, src string, before int, out io.Writer) (unmapped, queries int, err error) {
	stmts, err := parser.Parse(src)
	if err != nil {
		return 0, 0, err
	}
	for _, st := range stmts {
		switch st.(type) {
		case *parser.Insert, *parser.StatementSet, parser.Query:
		default:
			if err := sess.Exec(context.Background(), st); err != nil {
				return 0, 0, err
			}
			continue
		}
		queries++
		e, err := sess.Explain(st)
		if err != nil {
			return 0, 0, err
		}
		// The job names do not change uids; the file sink needs some.
		g, err := planner.Compile(e.Optimized, planner.Env{Parallelism: max(sess.Parallelism, 1), Stdout: io.Discard, JobID: "check", Job: "check"})
		if err != nil {
			return 0, 0, &planner.Error{Pos: st.Pos(), Kind: planner.ErrUnsupported, Msg: err.Error()}
		}
		fmt.Fprintf(out, "%s:%s: %s\n", file, st.Pos(), firstLine(st.String()))
		if before+queries > 1 {
			fmt.Fprintln(out, "  starts without the savepoint: a run restores it into its first INSERT or SELECT only")
			continue
		}
		m := exec.MatchState(g, md)
		names := uidNames(g)
		tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		for _, uid := range m.Restored {
			fmt.Fprintf(tw, "  maps\t%s\t%s\n", uid, names[uid])
		}
		for _, uid := range m.Empty {
			fmt.Fprintf(tw, "  new\t%s\t%s: starts empty\n", uid, names[uid])
		}
		for _, u := range m.Unmapped {
			fmt.Fprintf(tw, "  cannot map\t%s\t%s\n", u.UID, u.Reason)
		}
		if err := tw.Flush(); err != nil {
			return 0, 0, err
		}
		unmapped += len(m.Unmapped)
	}
	return unmapped, queries, nil
}

// uidNames names the operator, source or sink of each uid of g.
func uidNames(g *exec.Graph) map[string]string {
	names := map[string]string{}
	for _, v := range g.Vertices {
		for _, op := range v.Ops {
			if op.UID != "" {
				names[op.UID] = strings.TrimSuffix(op.Name, " uid="+op.UID)
			}
		}
		if v.Source != nil {
			names[v.Source.UID] = "source " + v.Source.Table
		}
		if v.SinkUID != "" {
			names[v.SinkUID] = "sink " + v.SinkName
		}
	}
	return names
}

func firstLine(s string) string {
	line, _, more := strings.Cut(strings.TrimSpace(s), "\n")
	if len(line) > 80 {
		line, more = line[:77], true
	}
	if more {
		return line + " ..."
	}
	return line
}
