package session

import (
	"github.com/prometheus/client_golang/prometheus"
)

// collector exports every job's counters to Prometheus, read when
// scraped, labeled with the job's id and name.
type collector struct{ jobs *Jobs }

var labels = []string{"job_id", "job_name"}

var (
	rowsRead    = prometheus.NewDesc("strand_job_rows_read_total", "Rows the job's sources have read.", labels, nil)
	rowsWritten = prometheus.NewDesc("strand_job_rows_written_total", "Rows the job's sinks have written.", labels, nil)
	lateRows    = prometheus.NewDesc("strand_job_late_rows_total", "Rows dropped because their window had fired.", labels, nil)
	badRows     = prometheus.NewDesc("strand_job_bad_rows_total", "Malformed rows skipped (ignore-parse-errors).", labels, nil)
	completed   = prometheus.NewDesc("strand_job_checkpoints_completed_total", "Checkpoints completed.", labels, nil)
	failed      = prometheus.NewDesc("strand_job_checkpoints_failed_total", "Checkpoints failed.", labels, nil)
	spills      = prometheus.NewDesc("strand_job_spills_total", "Windows spilled to the state store for want of memory.", labels, nil)
	stateBytes  = prometheus.NewDesc("strand_job_state_bytes", "The job's operator state: in managed memory (memory), in state stores' memtables (memtable) and in their files (disk).", append(labels[:len(labels):len(labels)], "where"), nil)
	lastCP      = prometheus.NewDesc("strand_job_last_checkpoint_timestamp_seconds", "When the latest checkpoint completed.", labels, nil)
)

func (collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{rowsRead, rowsWritten, lateRows, badRows, completed, failed, spills, stateBytes, lastCP} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	for _, j := range c.jobs.List() {
		m, cp := j.Metrics, j.Checkpoints()
		counter := func(d *prometheus.Desc, v int64) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), j.ID, j.Name)
		}
		counter(rowsRead, m.RowsRead.Load())
		counter(rowsWritten, m.RowsWritten.Load())
		counter(lateRows, m.LateRows.Load())
		counter(badRows, m.BadRows.Load())
		counter(completed, cp.Completed)
		counter(failed, cp.Failed)
		counter(spills, m.Spills.Load())
		var mem, memtable, disk int64
		for _, v := range j.Vertices() {
			for i := range v.Subtasks {
				st := &v.Subtasks[i]
				mem, memtable, disk = mem+st.StateMemory(), memtable+st.StateMemtable.Load(), disk+st.StateSpilled.Load()
			}
		}
		for where, v := range map[string]int64{"memory": mem, "memtable": memtable, "disk": disk} {
			ch <- prometheus.MustNewConstMetric(stateBytes, prometheus.GaugeValue, float64(v), j.ID, j.Name, where)
		}
		if cp.LastID != 0 {
			ch <- prometheus.MustNewConstMetric(lastCP, prometheus.GaugeValue, float64(cp.Last.UnixMilli())/1e3, j.ID, j.Name)
		}
	}
}
