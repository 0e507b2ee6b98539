// Package exec is strand's kernel: it runs a job graph (Graph, Vertex,
// Edge) as one goroutine per subtask connected by bounded channels, with
// the exchanges between vertices (forward, hash by key group, rebalance,
// broadcast, global), the checkpoint coordinator and barrier alignment,
// savepoints and stops, the restore of operator state, and the contracts
// operators, sources and sinks implement. Start returns a Job handle;
// Run is Start then Wait.
//
// # Metrics
//
// A job's counters (Metrics) are shared by its tasks and updated once per
// batch, never per row. Each vertex has its own (VertexMetrics, from
// Job.Vertices), and each of its subtasks too (SubtaskMetrics): rows into
// and out of the chain, late rows, rows with a NULL event time, spills,
// the watermark, and figures read only when asked for, so that they cost
// the tasks nothing: managed memory in use, and how full the subtask's
// input channels (it does not keep up) and output channels (it is
// backpressured) are. The size of a state store on disk is measured after
// a spill or a checkpoint, not per batch. Job.CheckpointHistory lists the
// run's latest HistorySize checkpoints and savepoints with their trigger
// time, duration, sizes and outcome. The HTTP API and the dashboard
// (package session) read them.
package exec
