package manet

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Campaign runs Protocols × Seeds of one Scenario and writes every run's
// files flat into OutDir.
type Campaign struct {
	Scenario  Scenario
	Protocols []string // routing protocols, each of Protocols
	Seeds     []int    // realisations (ns-3 run numbers), >= 1
	OutDir    string   // created if missing
	Binary    string   // scenario binary, from Build
	Jobs      int      // simulations at a time; 0 means runtime.NumCPU()
	Gzip      bool     // replace each pcap by <name>.pcap.gz
	// Resume skips runs whose files in OutDir are complete and were made
	// with the same knobs (config.txt's campaign_key equals RunKey); any
	// other run, a killed one included, is (re)done.
	Resume bool
	// Shard and Shards select part of the seeds: seed number k (1-based
	// position in Seeds) runs when (k-1) % Shards == Shard. Shards 0 or 1
	// means all. Every protocol of a seed stays in one shard.
	Shard, Shards int
	// HookProtocols allows protocol names outside Protocols: the scenario
	// binary was built with a routing-helper hook (BuildOptions.HookFile).
	HookProtocols bool
	// Progress receives a progress bar. nil means no bar.
	Progress io.Writer
	// Logf receives one line per finished run (with progress, ETA and disk
	// use). nil means silent.
	Logf func(format string, args ...any)
}

// RunResult is the outcome of one simulation.
type RunResult struct {
	Run          Run
	Prefix       string        // file prefix, e.g. "tcp-aodv-r1"
	Wall         time.Duration // wall-clock time of the simulation, gzip excluded
	PcapRawBytes int64         // pcap bytes as written by ns-3
	PcapGzBytes  int64         // pcap bytes after gzip; 0 unless Campaign.Gzip
	Files        []string      // names of the files written into OutDir, sorted
	Flows        []FlowTruth   // the run's ground truth; nil if the run failed
	Err          error         // nil if the run succeeded
	Skipped      bool          // finished by an earlier campaign (Resume); Wall is 0
	DiskBytes    int64         // bytes of the run's files in OutDir
}

// Result lists every run of a campaign in run order (seed, then protocol).
type Result struct {
	Runs []RunResult
	// DiskBytes is the size of every file in OutDir after the campaign.
	DiskBytes int64
}

// Failed returns the runs that did not succeed.
func (r *Result) Failed() []RunResult {
	var out []RunResult
	for _, rr := range r.Runs {
		if rr.Err != nil {
			out = append(out, rr)
		}
	}
	return out
}

// A CampaignError lists the runs that failed.
type CampaignError struct {
	Total  int
	Failed []RunResult
}

// Error lists the failed runs, one per line, with their errors.
func (e *CampaignError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d runs failed:", len(e.Failed), e.Total)
	for _, f := range e.Failed {
		fmt.Fprintf(&b, "\n  %s: %v", f.Prefix, f.Err)
	}
	return b.String()
}

// Unwrap returns the runs' errors, so errors.Is(err, context.Canceled) works.
func (e *CampaignError) Unwrap() []error {
	var errs []error
	for _, f := range e.Failed {
		errs = append(errs, f.Err)
	}
	return errs
}

// Runs returns the campaign's runs in execution order: seeds outer,
// protocols inner, so the paired runs of a seed finish together.
func (c *Campaign) Runs() []Run {
	var runs []Run
	for k, s := range c.Seeds {
		if c.Shards > 1 && k%c.Shards != c.Shard {
			continue
		}
		for _, p := range c.Protocols {
			runs = append(runs, Run{Protocol: p, Seed: s})
		}
	}
	return runs
}

// RunKey returns the key of run r: a hash of its command line and of the
// scenario binary's name (which carries the hash of its sources and
// toolchain, see Build). A run in OutDir counts as finished for Resume only
// with the same key.
func (c *Campaign) RunKey(r Run) string {
	h := sha256.Sum256([]byte(strings.Join(append(c.Scenario.Args(r), filepath.Base(c.Binary)), "\x00")))
	return hex.EncodeToString(h[:8])
}

// ParseShard parses "i/n" (1-based i, 1 <= i <= n) into a 0-based index
// and a count for Campaign.Shard and Campaign.Shards.
func ParseShard(s string) (shard, shards int, err error) {
	var i, n int
	if _, err := fmt.Sscanf(s, "%d/%d", &i, &n); err != nil || n < 1 || i < 1 || i > n || fmt.Sprintf("%d/%d", i, n) != strings.TrimSpace(s) {
		return 0, 0, fmt.Errorf("shard %q: want i/n with 1 <= i <= n, e.g. 2/4", s)
	}
	return i - 1, n, nil
}

// Command returns the command that simulates run r inside dir.
func (c *Campaign) Command(ctx context.Context, r Run, dir string) *exec.Cmd {
	args := append(c.Scenario.Args(r), "--campaignKey="+c.RunKey(r))
	cmd := exec.CommandContext(ctx, c.Binary, args...)
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// Execute runs the campaign. Each simulation runs in a private directory
// under OutDir and its files move into OutDir only when it succeeded,
// replacing files of an earlier run with the same prefix. Afterwards it
// rewrites OutDir/groundtruth-all.csv from every *-groundtruth.csv there and
// merges this campaign's rows into OutDir/runtimes.csv. When ctx is
// cancelled the running simulations are killed. If any run failed the error
// is a *CampaignError; the Result is always complete.
func (c *Campaign) Execute(ctx context.Context) (*Result, error) {
	if err := c.Scenario.Validate(); err != nil {
		return nil, err
	}
	if len(c.Protocols) == 0 || len(c.Seeds) == 0 {
		return nil, errors.New("campaign: no protocols or no seeds")
	}
	for _, p := range c.Protocols {
		if !slices.Contains(Protocols, p) && !(c.HookProtocols && validHookName(p)) {
			return nil, fmt.Errorf("campaign: unknown protocol %q", p)
		}
	}
	if c.Shards > 1 && (c.Shard < 0 || c.Shard >= c.Shards) {
		return nil, fmt.Errorf("campaign: shard %d of %d", c.Shard+1, c.Shards)
	}
	for _, s := range c.Seeds {
		if s < 1 {
			return nil, fmt.Errorf("campaign: seed %d: want >= 1", s)
		}
	}
	if c.Binary == "" {
		return nil, errors.New("campaign: no scenario binary (call Build)")
	}
	if err := os.MkdirAll(c.OutDir, 0o755); err != nil {
		return nil, fmt.Errorf("campaign: %w", err)
	}
	runs := c.Runs()
	if len(runs) == 0 {
		return nil, errors.New("campaign: this shard holds no seed")
	}
	c.removeStaleWork()
	res := &Result{Runs: make([]RunResult, len(runs))}
	var todo []int
	for i, r := range runs {
		if c.Resume {
			if rr, ok := c.finished(r); ok {
				res.Runs[i] = rr
				continue
			}
		}
		todo = append(todo, i)
	}
	if c.Logf != nil && len(todo) < len(runs) {
		c.Logf("resume: %d of %d runs already finished in %s", len(runs)-len(todo), len(runs), c.OutDir)
	}
	jobs := c.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	jobs = max(1, min(jobs, len(todo)))

	var bar *progressbar.ProgressBar
	if c.Progress != nil {
		bar = progressbar.NewOptions(len(todo),
			progressbar.OptionSetWriter(c.Progress),
			progressbar.OptionSetDescription(fmt.Sprintf("ns-3 %s runs", c.Scenario.Transport)),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionSetRenderBlankState(true),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(c.Progress) }),
		)
	}

	idx := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex // guards bar, Logf and the progress counters
	started := time.Now()
	done, failed := 0, 0
	var disk int64
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range idx {
				rr := c.runOne(ctx, runs[i])
				res.Runs[i] = rr
				mu.Lock()
				if bar != nil {
					bar.Add(1)
				}
				done++
				if rr.Err != nil {
					failed++
				} else {
					disk += rr.DiskBytes
				}
				if c.Logf != nil {
					eta := "?"
					if done > 0 {
						// Elapsed time per finished run includes gzip and
						// the moves, which the simulation's wall-clock omits.
						left := time.Duration(len(todo)-done) * (time.Since(started) / time.Duration(done))
						eta = left.Round(time.Second).String()
					}
					prog := fmt.Sprintf("[%d/%d] elapsed %s, ETA %s, %s written", done, len(todo),
						time.Since(started).Round(time.Second), eta, FormatBytes(disk))
					if rr.Err != nil {
						c.Logf("%s %s: FAILED: %v", prog, rr.Prefix, rr.Err)
					} else {
						c.Logf("%s %s: done in %.1f s (%s)", prog, rr.Prefix, rr.Wall.Seconds(), FormatBytes(rr.DiskBytes))
					}
				}
				mu.Unlock()
			}
		}()
	}
	for _, i := range todo {
		if ctx.Err() != nil {
			res.Runs[i] = RunResult{Run: runs[i], Prefix: c.Scenario.Prefix(runs[i]), Err: fmt.Errorf("not started: %w", ctx.Err())}
			continue
		}
		idx <- i
	}
	close(idx)
	wg.Wait()
	if bar != nil && ctx.Err() == nil {
		bar.Finish()
	}

	var errs []error
	if err := c.writeGroundTruthAll(); err != nil {
		errs = append(errs, err)
	}
	if err := c.writeAll("-overhead.csv", OverheadAllName); err != nil {
		errs = append(errs, err)
	}
	res.DiskBytes = dirBytes(c.OutDir)
	if err := c.writeRuntimes(res); err != nil {
		errs = append(errs, err)
	}
	if failed := res.Failed(); len(failed) > 0 {
		errs = append(errs, &CampaignError{Total: len(runs), Failed: failed})
	}
	return res, errors.Join(errs...)
}

// runOne simulates r in a private directory and moves its files into OutDir.
func (c *Campaign) runOne(ctx context.Context, r Run) RunResult {
	rr := RunResult{Run: r, Prefix: c.Scenario.Prefix(r)}
	if err := ctx.Err(); err != nil {
		rr.Err = fmt.Errorf("not started: %w", err)
		return rr
	}
	work, err := os.MkdirTemp(c.OutDir, fmt.Sprintf(".run-%s-%d-", rr.Prefix, os.Getpid()))
	if err != nil {
		rr.Err = err
		return rr
	}
	defer os.RemoveAll(work)

	stdout, err := os.Create(filepath.Join(work, rr.Prefix+"-stdout.txt"))
	if err != nil {
		rr.Err = err
		return rr
	}
	var stderr bytes.Buffer
	cmd := c.Command(ctx, r, work)
	cmd.Stdout = stdout
	cmd.Stderr = &limitedBuffer{buf: &stderr, max: 64 << 10}
	start := time.Now()
	err = cmd.Run()
	rr.Wall = time.Since(start)
	if cerr := stdout.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if ctx.Err() != nil {
			rr.Err = fmt.Errorf("killed: %w", ctx.Err())
		} else if msg := strings.TrimSpace(tail(stderr.String(), 5)); msg != "" {
			rr.Err = fmt.Errorf("%v: %s", err, msg)
		} else {
			rr.Err = err
		}
		return rr
	}

	names, err := c.finishFiles(ctx, work, &rr)
	if err != nil {
		rr.Err = err
		return rr
	}
	rr.Files = names
	for _, n := range names {
		if st, err := os.Stat(filepath.Join(c.OutDir, n)); err == nil {
			rr.DiskBytes += st.Size()
		}
	}
	rr.Flows, rr.Err = ReadGroundTruth(filepath.Join(c.OutDir, rr.Prefix+"-groundtruth.csv"))
	return rr
}

// finished reports whether run r is complete in OutDir with this
// campaign's knobs: its ground truth exists (moved in last) and its config
// carries RunKey(r).
func (c *Campaign) finished(r Run) (RunResult, bool) {
	rr := RunResult{Run: r, Prefix: c.Scenario.Prefix(r), Skipped: true}
	cfg, err := ReadConfig(filepath.Join(c.OutDir, rr.Prefix+"-config.txt"))
	if err != nil || cfg.Values["campaign_key"] != c.RunKey(r) {
		return rr, false
	}
	flows, err := ReadGroundTruth(filepath.Join(c.OutDir, rr.Prefix+"-groundtruth.csv"))
	if err != nil {
		return rr, false
	}
	rr.Flows = flows
	files, _ := filepath.Glob(filepath.Join(c.OutDir, rr.Prefix+"-*"))
	for _, f := range files {
		rr.Files = append(rr.Files, filepath.Base(f))
		if st, err := os.Stat(f); err == nil {
			rr.DiskBytes += st.Size()
		}
	}
	slices.Sort(rr.Files)
	return rr, true
}

// removeStaleWork deletes the private run directories (.run-PREFIX-PID-*)
// that a killed campaign left behind: those whose process is gone.
func (c *Campaign) removeStaleWork() {
	dirs, _ := filepath.Glob(filepath.Join(c.OutDir, ".run-*"))
	for _, d := range dirs {
		parts := strings.Split(filepath.Base(d), "-")
		if len(parts) < 3 {
			continue
		}
		pid, err := strconv.Atoi(parts[len(parts)-2])
		if err != nil || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		os.RemoveAll(d)
	}
}

// validHookName accepts protocol names for the routing hook: lower-case
// letters, digits and '_' (no '-', which separates the parts of a prefix).
func validHookName(p string) bool {
	if p == "" {
		return false
	}
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// dirBytes sums the sizes of the regular files directly in dir.
func dirBytes(dir string) int64 {
	entries, _ := os.ReadDir(dir)
	var n int64
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
	}
	return n
}

// FormatBytes writes n in B, kB, MB or GB (powers of 1000).
func FormatBytes(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

// finishFiles gzips the pcaps in work if asked, checks that the run wrote its
// ground truth, removes OutDir files of an earlier run with the same prefix
// and moves the new ones in.
func (c *Campaign) finishFiles(ctx context.Context, work string, rr *RunResult) ([]string, error) {
	if !fileExists(filepath.Join(work, rr.Prefix+"-groundtruth.csv")) {
		return nil, errors.New("simulation wrote no ground truth")
	}
	pcaps, _ := filepath.Glob(filepath.Join(work, rr.Prefix+"-*.pcap"))
	for _, p := range pcaps {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		rr.PcapRawBytes += st.Size()
		if c.Gzip {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("killed: %w", err)
			}
			n, err := gzipFile(p)
			if err != nil {
				return nil, err
			}
			rr.PcapGzBytes += n
		}
	}
	old, _ := filepath.Glob(filepath.Join(c.OutDir, rr.Prefix+"-*"))
	for _, o := range old {
		if err := os.Remove(o); err != nil {
			return nil, fmt.Errorf("remove earlier output: %w", err)
		}
	}
	entries, err := os.ReadDir(work)
	if err != nil {
		return nil, err
	}
	// The ground truth moves in last: its presence marks a complete run.
	gt := rr.Prefix + "-groundtruth.csv"
	slices.SortFunc(entries, func(a, b os.DirEntry) int {
		if (a.Name() == gt) != (b.Name() == gt) {
			if a.Name() == gt {
				return 1
			}
			return -1
		}
		return strings.Compare(a.Name(), b.Name())
	})
	var names []string
	for _, e := range entries {
		if err := os.Rename(filepath.Join(work, e.Name()), filepath.Join(c.OutDir, e.Name())); err != nil {
			return nil, err
		}
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names, nil
}

// gzipFile replaces path by path.gz and returns the compressed size.
func gzipFile(path string) (int64, error) {
	in, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := os.Create(path + ".gz")
	if err != nil {
		return 0, err
	}
	zw, err := gzip.NewWriterLevel(out, gzip.DefaultCompression)
	if err != nil {
		out.Close()
		return 0, err
	}
	zw.Name = filepath.Base(path)
	_, err = io.Copy(zw, bufio.NewReaderSize(in, 1<<20))
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("gzip %s: %w", filepath.Base(path), err)
	}
	st, err := os.Stat(path + ".gz")
	if err != nil {
		return 0, err
	}
	return st.Size(), os.Remove(path)
}

// GroundTruthAllName is the combined ground truth of a campaign directory.
const GroundTruthAllName = "groundtruth-all.csv"

// OverheadAllName is the combined routing overhead table of a campaign
// directory (every <prefix>-overhead.csv).
const OverheadAllName = "overhead-all.csv"

func (c *Campaign) writeGroundTruthAll() error {
	return c.writeAll("-groundtruth.csv", GroundTruthAllName)
}

// writeAll concatenates every *<suffix> in OutDir (sorted by transport,
// protocol, run) under one header into name.
func (c *Campaign) writeAll(suffix, name string) error {
	files, err := filepath.Glob(filepath.Join(c.OutDir, "*"+suffix))
	if err != nil {
		return err
	}
	type key struct {
		transport, protocol string
		run                 int
	}
	keyOf := func(p string) key {
		parts := strings.Split(strings.TrimSuffix(filepath.Base(p), suffix), "-")
		var k key
		if len(parts) == 3 {
			k.transport, k.protocol = parts[0], parts[1]
			k.run, _ = strconv.Atoi(strings.TrimPrefix(parts[2], "r"))
		}
		return k
	}
	slices.SortFunc(files, func(a, b string) int {
		ka, kb := keyOf(a), keyOf(b)
		if n := strings.Compare(ka.transport, kb.transport); n != 0 {
			return n
		}
		if n := strings.Compare(ka.protocol, kb.protocol); n != 0 {
			return n
		}
		return ka.run - kb.run
	})
	var b bytes.Buffer
	header := ""
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		h, body, _ := strings.Cut(string(data), "\n")
		if header == "" {
			header = h
			b.WriteString(h + "\n")
		} else if h != header {
			return fmt.Errorf("write %s: %s has a different header", name, filepath.Base(f))
		}
		b.WriteString(body)
	}
	if header == "" {
		return nil
	}
	return writeFileAtomic(filepath.Join(c.OutDir, name), b.Bytes())
}

// RuntimesName is the per-run wall-clock and pcap size table of a campaign
// directory.
const RuntimesName = "runtimes.csv"

const runtimesHeader = "transport,protocol,run,wallclock_s,pcap_bytes_raw,pcap_bytes_gz"

// writeRuntimes merges this campaign's successful runs into runtimes.csv,
// replacing rows of the same prefix.
func (c *Campaign) writeRuntimes(res *Result) error {
	path := filepath.Join(c.OutDir, RuntimesName)
	rows := map[string]string{} // "transport,protocol,run" -> row
	if data, err := os.ReadFile(path); err == nil {
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) > 0 && lines[0] == runtimesHeader {
			for _, l := range lines[1:] {
				f := strings.SplitN(l, ",", 4)
				if len(f) == 4 {
					rows[strings.Join(f[:3], ",")] = l
				}
			}
		}
	}
	for _, rr := range res.Runs {
		if rr.Err != nil || rr.Skipped {
			continue
		}
		k := fmt.Sprintf("%s,%s,%d", c.Scenario.Transport, rr.Run.Protocol, rr.Run.Seed)
		rows[k] = fmt.Sprintf("%s,%.2f,%d,%d", k, rr.Wall.Seconds(), rr.PcapRawBytes, rr.PcapGzBytes)
	}
	if len(rows) == 0 {
		return nil
	}
	keys := make([]string, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		fa, fb := strings.Split(a, ","), strings.Split(b, ",")
		if n := strings.Compare(fa[0]+","+fa[1], fb[0]+","+fb[1]); n != 0 {
			return n
		}
		ra, _ := strconv.Atoi(fa[2])
		rb, _ := strconv.Atoi(fb[2])
		return ra - rb
	})
	var b strings.Builder
	b.WriteString(runtimesHeader + "\n")
	for _, k := range keys {
		b.WriteString(rows[k] + "\n")
	}
	return writeFileAtomic(path, []byte(b.String()))
}

func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}

// limitedBuffer keeps the first max bytes written and discards the rest.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

// Write keeps what fits and always reports success, so the child never
// blocks or fails on a chatty stderr.
func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// WriteSummary prints the campaign's outcome: to table, one right-aligned
// line per flow of every run (run, wall time in seconds or "done" for a
// run already complete before, flow, source and sink nodes, bytes the sink
// received, goodput in kbit/s, TCP retransmitted segments) and one FAILED
// line per failed run; to totals, the number of runs, those already done
// and the disk the output directory holds. Errors: table's.
func (r *Result) WriteSummary(table, totals io.Writer) error {
	tw := tabwriter.NewWriter(table, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "run\twall_s\tflow\tsrc->dst\tsink_rx_bytes\tgoodput_kbps\ttcp_retx\t")
	skipped := 0
	for _, rr := range r.Runs {
		if rr.Err != nil {
			fmt.Fprintf(tw, "%s\t-\t-\tFAILED\t-\t-\t-\t\n", rr.Prefix)
			continue
		}
		wall := fmt.Sprintf("%.1f", rr.Wall.Seconds())
		if rr.Skipped {
			wall = "done"
			skipped++
		}
		for _, fl := range rr.Flows {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d->%d\t%d\t%.1f\t%d\t\n", rr.Prefix, wall,
				fl.FlowID, fl.SrcNode, fl.DstNode, fl.SinkRxBytes, fl.GoodputKbps, fl.TCPRetxSegs)
		}
	}
	err := tw.Flush()
	fmt.Fprintf(totals, "%d runs (%d already done before), %s in the output directory\n",
		len(r.Runs), skipped, FormatBytes(r.DiskBytes))
	return err
}
