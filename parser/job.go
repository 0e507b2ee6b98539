package parser

// ShowJobs is SHOW JOBS: the session's jobs.
type ShowJobs struct{ Start Pos }

// StopJob is STOP JOB 'id' [WITH SAVEPOINT] [WITH DRAIN], as in Flink's SQL
// client.
type StopJob struct {
	Start Pos
	ID    *StringLit
	// Savepoint takes a savepoint before the job stops; Drain fires every
	// window first.
	Savepoint, Drain bool
}

func (n *ShowJobs) Pos() Pos { return n.Start }
func (n *StopJob) Pos() Pos  { return n.Start }
func (*ShowJobs) statement() {}
func (*StopJob) statement()  {}

func (n *ShowJobs) String() string { return "SHOW JOBS" }

func (n *StopJob) String() string {
	s := "STOP JOB " + n.ID.String()
	if n.Savepoint {
		s += " WITH SAVEPOINT"
	}
	if n.Drain {
		s += " WITH DRAIN"
	}
	return s
}

// stopJob parses STOP JOB 'id' [WITH SAVEPOINT] [WITH DRAIN].
func (p *parser) stopJob() (Statement, error) {
	st := &StopJob{Start: p.next().pos}
	if _, err := p.expectKw("JOB"); err != nil {
		return nil, err
	}
	id, err := p.stringLit()
	if err != nil {
		return nil, err
	}
	st.ID = id
	for p.acceptKw("WITH") {
		switch {
		case !st.Savepoint && !st.Drain && p.acceptKw("SAVEPOINT"):
			st.Savepoint = true
		case !st.Drain && p.acceptKw("DRAIN"):
			st.Drain = true
		default:
			return nil, p.unexpected()
		}
	}
	return st, nil
}
