package main

import "strings"

// shape is one query in both dialects. Placeholders: {src} is the input
// table (strand: the table clicks; DuckDB: a read_csv or read_json call).
// kinds gives each output column's kind for comparing results: 't'
// timestamp, 'i' integer, 's' string, 'f' a float read or picked from the
// input (compared exactly), 'S' a float sum (compared to 1e-9 relative,
// since the order of addition differs).
type shape struct {
	name   string
	strand string
	duck   string
	kinds  string
}

var shapes = []shape{
	{
		name: "agg",
		strand: `SELECT window_start, user_id, COUNT(*), COUNT(amount), SUM(amount), MIN(amount), MAX(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, user_id`,
		duck: `SELECT time_bucket(INTERVAL 10 SECOND, ts), user_id, COUNT(*), COUNT(amount), SUM(amount), MIN(amount), MAX(amount)
FROM {src} GROUP BY ALL`,
		kinds: "tiiiSff",
	},
	{
		name:   "filter",
		strand: `SELECT ts, user_id, url, amount FROM clicks WHERE amount >= 990 AND user_id % 2 = 0`,
		duck:   `SELECT ts, user_id, url, amount FROM {src} WHERE amount >= 990 AND user_id % 2 = 0`,
		kinds:  "tisf",
	},
	{
		name: "strkey",
		strand: `SELECT window_start, url, COUNT(*), SUM(amount), MAX(user_id)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, url`,
		duck: `SELECT time_bucket(INTERVAL 10 SECOND, ts), url, COUNT(*), SUM(amount), MAX(user_id)
FROM {src} GROUP BY ALL`,
		kinds: "tsiSi",
	},
	{
		name: "distinct",
		strand: `SELECT window_start, COUNT(DISTINCT user_id), COUNT(DISTINCT url), COUNT(*)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end`,
		duck: `SELECT time_bucket(INTERVAL 10 SECOND, ts), COUNT(DISTINCT user_id), COUNT(DISTINCT url), COUNT(*)
FROM {src} GROUP BY ALL`,
		kinds: "tiii",
	},
}

// strandSQL is the whole script strand runs for shape s over the input
// file in format, writing CSV part files into out.
func (s shape) strandSQL(in, format, out string) string {
	var cols, sink []string
	for i, k := range s.kinds {
		cols = append(cols, "c"+string(rune('0'+i))+" "+map[rune]string{'t': "TIMESTAMP(3)", 'i': "BIGINT", 's': "STRING", 'f': "DOUBLE", 'S': "DOUBLE"}[k])
	}
	sink = append(sink, cols...)
	return `CREATE TABLE clicks (ts TIMESTAMP(3), user_id BIGINT, url STRING, amount DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = '` + in + `', 'format' = '` + format + `');
CREATE TABLE result (` + strings.Join(sink, ", ") + `) WITH ('connector' = 'filesystem', 'path' = '` + out + `', 'format' = 'csv');
INSERT INTO result ` + s.strand + ";\n"
}

// duckSQL is the statement DuckDB runs for shape s.
func (s shape) duckSQL(in, format, out string) string {
	cols := `columns = {'ts': 'TIMESTAMP', 'user_id': 'BIGINT', 'url': 'VARCHAR', 'amount': 'DOUBLE'}`
	src := `read_csv('` + in + `', header = false, auto_detect = false, ` + cols + `)`
	if format == "json" {
		src = `read_json('` + in + `', format = 'newline_delimited', ` + cols + `)`
	}
	q := strings.ReplaceAll(s.duck, "{src}", src)
	return `COPY (` + q + `) TO '` + out + `' (FORMAT csv, HEADER false);`
}
