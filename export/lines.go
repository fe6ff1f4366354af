package export

import (
	"io"
	"iter"
	"runtime"
	"sync"
)

// linesChunk is how many rows writeLines formats as one piece of work.
const linesChunk = 4096

// writeLines writes head, then every row of rows formatted by appendRow
// (which appends the row's line, newline included), to w. Rows are taken
// from rows on the calling goroutine in chunks of linesChunk; the chunks
// are formatted on up to GOMAXPROCS goroutines (at most 4) and written in
// order, so the output is byte for byte what one goroutine formatting row
// after row writes. Memory: a few chunks of rows and of their lines.
// Errors: w's first error; rows is then left early.
func writeLines[T any](w io.Writer, head []byte, rows iter.Seq[T], appendRow func([]byte, *T) []byte) error {
	if _, err := w.Write(head); err != nil {
		return err
	}
	workers := min(runtime.GOMAXPROCS(0), 4)
	if workers < 2 {
		return writeLinesSerial(w, rows, appendRow)
	}
	type job struct {
		rows []T
		buf  []byte
		done chan struct{}
	}
	pool := 3 * workers
	free := make(chan *job, pool)
	for range pool {
		free <- &job{rows: make([]T, 0, linesChunk), done: make(chan struct{}, 1)}
	}
	jobs := make(chan *job, pool)
	order := make(chan *job, pool)
	stop := make(chan struct{}) // closed by the writer at w's first error
	var werr error
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for j := range jobs {
				j.buf = j.buf[:0]
				for i := range j.rows {
					j.buf = appendRow(j.buf, &j.rows[i])
				}
				j.done <- struct{}{}
			}
		})
	}
	written := make(chan struct{})
	go func() {
		defer close(written)
		for j := range order {
			<-j.done
			if werr == nil {
				if _, err := w.Write(j.buf); err != nil {
					werr = err
					close(stop)
				}
			}
			j.rows = j.rows[:0]
			free <- j
		}
	}()
	send := func(j *job) {
		order <- j // never blocks: order holds the whole pool
		jobs <- j
	}
	cur := <-free
	for r := range rows {
		cur.rows = append(cur.rows, r)
		if len(cur.rows) < linesChunk {
			continue
		}
		send(cur)
		cur = nil
		select {
		case cur = <-free:
		case <-stop:
		}
		if cur == nil {
			break
		}
	}
	if cur != nil && len(cur.rows) > 0 {
		send(cur)
	}
	close(jobs)
	close(order)
	wg.Wait()
	<-written
	return werr
}

// writeLinesSerial is writeLines's formatting on the calling goroutine.
func writeLinesSerial[T any](w io.Writer, rows iter.Seq[T], appendRow func([]byte, *T) []byte) error {
	var buf []byte
	for r := range rows {
		buf = appendRow(buf, &r)
		if len(buf) >= 64<<10 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	_, err := w.Write(buf)
	return err
}
