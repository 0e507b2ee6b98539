package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// base is the first row's time. Rows are 1 ms apart plus up to 500 ms of
// disorder, less than the tables' 1 s watermark delay, so strand drops no
// row as late and both engines see the same rows.
var base = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// generate writes clicks.csv and clicks.json, the same rows: ts, user_id
// (10 000 users), url (one of 2 000 pages) and amount (two decimals).
func generate(dir string, rows int) error {
	r := rand.New(rand.NewPCG(1, 2))
	csvF, err := os.Create(filepath.Join(dir, "clicks.csv"))
	if err != nil {
		return err
	}
	defer csvF.Close()
	jsonF, err := os.Create(filepath.Join(dir, "clicks.json"))
	if err != nil {
		return err
	}
	defer jsonF.Close()
	cw, jw := bufio.NewWriterSize(csvF, 1<<20), bufio.NewWriterSize(jsonF, 1<<20)
	var ts, line []byte
	for i := range rows {
		t := base.Add(time.Duration(i)*time.Millisecond - time.Duration(r.IntN(500))*time.Millisecond)
		if t.Before(base) {
			t = base
		}
		ts = t.AppendFormat(ts[:0], "2006-01-02 15:04:05.000")
		user := r.IntN(10_000) + 1
		page := r.IntN(2_000)
		cents := r.IntN(100_000)
		amount := strconv.FormatFloat(float64(cents)/100, 'f', -1, 64)
		url := fmt.Sprintf("https://shop.example.com/p/%d", page)

		line = append(line[:0], ts...)
		line = append(line, ',')
		line = strconv.AppendInt(line, int64(user), 10)
		line = append(line, ',')
		line = append(line, url...)
		line = append(line, ',')
		line = append(line, amount...)
		line = append(line, '\n')
		cw.Write(line)

		line = append(line[:0], `{"ts":"`...)
		line = append(line, ts...)
		line = append(line, `","user_id":`...)
		line = strconv.AppendInt(line, int64(user), 10)
		line = append(line, `,"url":"`...)
		line = append(line, url...)
		line = append(line, `","amount":`...)
		line = append(line, amount...)
		line = append(line, "}\n"...)
		jw.Write(line)
	}
	if err := cw.Flush(); err != nil {
		return err
	}
	if err := jw.Flush(); err != nil {
		return err
	}
	if err := csvF.Close(); err != nil {
		return err
	}
	return jsonF.Close()
}
