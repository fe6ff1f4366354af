package report

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// browser starts headless chromium (Debian's package) for t, or skips t
// with a one-line reason when it is not installed.
func browser(t *testing.T) (context.Context, *consoleLog) {
	t.Helper()
	var exe string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			exe = p
			break
		}
	}
	if exe == "" {
		t.Skip("chromium not installed (apt-get install chromium): browser test skipped")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true), // CI runs as root
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("allow-file-access-from-files", true),
		chromedp.WindowSize(1280, 1400),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelC := chromedp.NewContext(actx)
	log := &consoleLog{}
	err := chromedp.Listen(bctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				var parts []string
				for _, a := range ev.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				log.add(fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(parts, " ")))
			}
		case *runtime.EventExceptionThrown:
			log.add(fmt.Sprintf("exception: %s %+v", ev.ExceptionDetails.Text, ev.ExceptionDetails.Exception))
		}
	})
	if err != nil {
		cancelC()
		cancelA()
		t.Fatalf("start %s: %v", exe, err)
	}
	ctx, cancelT := context.WithTimeout(bctx, 90*time.Second)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	return ctx, log
}

type consoleLog struct {
	mu   sync.Mutex
	msgs []string
}

func (l *consoleLog) add(s string) { l.mu.Lock(); l.msgs = append(l.msgs, s); l.mu.Unlock() }
func (l *consoleLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.msgs...)
}

// openReport loads the report at path and waits until its script says it
// is ready; it returns the page's load time in ms (performance.now() at
// ready).
func openReport(t *testing.T, ctx context.Context, path string) float64 {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+path)); err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	return waitReady(t, ctx)
}

// waitReady waits until the page's script says it is ready and returns
// its load time in ms; it fails t on a page error. A page being replaced
// is marked window.tcpviz.stale, so that its readiness does not count.
func waitReady(t *testing.T, ctx context.Context) float64 {
	t.Helper()
	// Evaluated again and again rather than with chromedp.Poll, whose
	// context dies with a page being reloaded.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!(window.tcpviz && !window.tcpviz.stale && (window.tcpviz.ready || window.tcpviz.errors.length > 0))`))
		if err == nil && ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the report did not get ready: %v", err)
		}
	}
	loadMs := eval[float64](t, ctx, `window.tcpviz.loadMs`)
	errs := eval[[]string](t, ctx, `window.tcpviz.errors`)
	if len(errs) > 0 {
		t.Fatalf("page errors: %v", errs)
	}
	return loadMs
}

// screenshot captures the page and returns the PNG and the fraction of
// pixels that are not white.
func screenshot(t *testing.T, ctx context.Context, sel string) ([]byte, float64) {
	t.Helper()
	buf, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(buf))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	b := img.Bounds()
	ink := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bb, _ := img.At(x, y).RGBA()
			if r < 0xf000 || g < 0xf000 || bb < 0xf000 {
				ink++
			}
		}
	}
	return buf, float64(ink) / float64(b.Dx()*b.Dy())
}

// saveShot writes a screenshot into $TCPVIZ_SHOTS (for a person to look
// at) when that variable names a folder.
func saveShot(t *testing.T, name string, png []byte) {
	if dir := os.Getenv("TCPVIZ_SHOTS"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Error(err)
		}
	}
}

// eval evaluates expr in the page and returns its JSON value as T.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// mouse runs mouse events (and pauses) in the page.
func mouse(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("mouse: %v", err)
	}
}

// TestBrowser loads the report of the 600 ms-RTT synthetic capture in
// headless chromium: no console errors, a scripted zoom moves every
// panel's x range, a mouse drag on the Stevens graph zooms every panel, a
// hover shows the tooltip of a retransmission, and the screenshots are not
// blank.
func TestBrowser(t *testing.T) {
	ctx, log := browser(t)
	path := filepath.Join(t.TempDir(), "geo.html")
	writeReport(t, path, []string{"../testdata/synthetic/geo-600ms-loss.pcap"}, Options{})
	openReport(t, ctx, path)

	panels := eval[[]string](t, ctx, `Object.keys(window.tcpviz.ranges())`)
	want := "seq rtt tput win ev"
	if len(moreMetrics()) > 0 { // a metric of package query the panels do not draw
		want += " more"
	}
	if strings.Join(panels, " ") != want {
		t.Errorf("panels = %v, want %s", panels, want)
	}
	png, ink := screenshot(t, ctx, "body")
	saveShot(t, "report-full.png", png)
	if ink < 0.02 {
		t.Errorf("full view: %.4f of the pixels are not white, want ≥ 0.02 (blank page?)", ink)
	}

	// Scripted zoom to 3–4 s: every panel shows exactly that range.
	ranges := eval[map[string][2]float64](t, ctx, `window.tcpviz.setRange(3, 4), window.tcpviz.ranges()`)
	for _, p := range panels {
		if r := ranges[p]; r[0] != 3 || r[1] != 4 {
			t.Errorf("after setRange(3, 4), panel %s shows x %v, want [3 4]", p, r)
		}
	}
	// The address keeps the range: reloaded, the page shows it again.
	time.Sleep(300 * time.Millisecond)
	if h := eval[string](t, ctx, `location.hash`); h != "#c=0&d=ab&x=3.000000000,4.000000000" {
		t.Errorf("location.hash = %q after zooming to 3–4 s, want #c=0&d=ab&x=3.000000000,4.000000000", h)
	}
	// The address as written, and the older #v=N form, both open the range.
	for _, h := range []string{"c=0&d=ab&x=5,6", "v=0&x=5,6"} {
		eval[bool](t, ctx, `window.tcpviz.stale = true, location.hash = '`+h+`', location.reload(), true`)
		waitReady(t, ctx)
		if r := eval[[2]float64](t, ctx, `window.tcpviz.ranges().seq`); r != [2]float64{5, 6} {
			t.Errorf("reloaded with #%s, the Stevens graph shows %v, want [5 6]", h, r)
		}
	}
	eval[bool](t, ctx, `window.tcpviz.setRange(3, 4), true`)
	png, ink = screenshot(t, ctx, "#panels")
	saveShot(t, "report-zoom.png", png)
	if ink < 0.01 {
		t.Errorf("zoomed view: %.4f of the pixels are not white, want ≥ 0.01", ink)
	}

	// A mouse drag across 40–60 % of the Stevens graph zooms every panel to
	// the same, narrower range.
	box := eval[[4]float64](t, ctx, `window.tcpviz.setRange(0, 25), (() => { const r = window.tcpviz.panels.seq.u.over.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`)
	x0, x1, y0, y1 := box[0]+box[2]*0.4, box[0]+box[2]*0.6, box[1]+box[3]*0.2, box[1]+box[3]*0.8
	ybefore := eval[[2]float64](t, ctx, `[window.tcpviz.panels.seq.u.scales.y.min, window.tcpviz.panels.seq.u.scales.y.max]`)
	mouse(t, ctx,
		chromedp.MouseEvent("mouseMoved", x0, y0),
		chromedp.MouseEvent("mousePressed", x0, y0, chromedp.ButtonLeft),
		chromedp.MouseEvent("mouseMoved", (x0+x1)/2, (y0+y1)/2, chromedp.ButtonLeft),
		chromedp.MouseEvent("mouseMoved", x1, y1, chromedp.ButtonLeft),
		chromedp.MouseEvent("mouseReleased", x1, y1, chromedp.ButtonLeft),
		chromedp.Sleep(100*time.Millisecond),
	)
	ranges = eval[map[string][2]float64](t, ctx, `window.tcpviz.ranges()`)
	seq := ranges["seq"]
	// The box also zoomed the Stevens graph's y axis to 20–80 % of the
	// range it had.
	yafter := eval[[2]float64](t, ctx, `[window.tcpviz.panels.seq.u.scales.y.min, window.tcpviz.panels.seq.u.scales.y.max]`)
	span := ybefore[1] - ybefore[0]
	if lo, hi := ybefore[0]+0.2*span, ybefore[0]+0.8*span; yafter[0] < lo-0.02*span || yafter[0] > lo+0.02*span || yafter[1] < hi-0.02*span || yafter[1] > hi+0.02*span {
		t.Errorf("after a box over 20–80 %% of y %v, the Stevens graph's y range is %v, want about [%.0f %.0f]", ybefore, yafter, lo, hi)
	}
	if !(seq[0] > 9 && seq[0] < 11 && seq[1] > 14 && seq[1] < 16) {
		t.Errorf("after a drag over 40–60 %% of [0, 25] s, the Stevens graph shows %v, want about [10 15]", seq)
	}
	for _, p := range panels {
		if ranges[p] != seq {
			t.Errorf("after the drag, panel %s shows %v, the Stevens graph %v: not linked", p, ranges[p], seq)
		}
	}

	// Hovering the first retransmission (frame 108, the fast retransmit at
	// 3.003 s) shows its frame number, time, sequence numbers and class.
	pt := eval[[2]float64](t, ctx, `window.tcpviz.setRange(2.9, 3.6), (() => { const P = window.tcpviz.panels.seq, u = P.u; const sl = P.cur.find(s => s.L.s.id === 'retx'); const i = sl.i0; const x = u.valToPos(sl.lv.x[i], 'x'), y = u.valToPos((sl.lv.y[i] + sl.lv.y2[i]) / 2, 'y'); const r = u.over.getBoundingClientRect(); return [r.left + x, r.top + y]; })()`)
	mouse(t, ctx, chromedp.MouseEvent("mouseMoved", pt[0], pt[1]), chromedp.Sleep(100*time.Millisecond))
	tip := eval[string](t, ctx, `document.getElementById('tip').style.display === 'block' ? document.getElementById('tip').textContent : ''`)
	for _, want := range []string{"retransmitted", "frame 108", "t = 3.003000 s", "seq 65,161 – 66,609 (1,448 B)"} {
		if !strings.Contains(tip, want) {
			t.Errorf("tooltip over the first retransmission = %q, want it to contain %q", tip, want)
		}
	}
	png, _ = screenshot(t, ctx, "#panels")
	saveShot(t, "report-tip.png", png)
	if msgs := log.all(); len(msgs) > 0 {
		t.Errorf("console: %v", msgs)
	}
}

// TestBrowserLarge opens the report named by $TCPVIZ_REPORT_HTML (made by
// 'tcpviz report' from a large capture, e.g. scripts/gen-bench-captures.sh),
// else one of a generated capture of 300 000 segments, and logs its load
// time; zoomed to 1 ms around the middle (or to $TCPVIZ_REPORT_RANGE,
// "FROM,TO" in seconds), the Stevens graph must draw level 0: every
// segment.
func TestBrowserLarge(t *testing.T) {
	ctx, log := browser(t)
	path := os.Getenv("TCPVIZ_REPORT_HTML")
	if path == "" {
		path = filepath.Join(t.TempDir(), "large.html")
		writeReport(t, path, []string{largeCapture(t, 200000)}, Options{})
	}
	abs, _ := filepath.Abs(path)
	start := time.Now()
	ms := openReport(t, ctx, abs)
	t.Logf("%s: ready %.0f ms after navigation start (%v wall clock incl. browser round trips); script timing %v", path, ms, time.Since(start), eval[map[string]float64](t, ctx, `window.tcpviz.timing`))
	png, ink := screenshot(t, ctx, "body")
	saveShot(t, "large-full.png", png)
	if ink < 0.02 {
		t.Errorf("full view: %.4f of the pixels are not white", ink)
	}
	full := eval[[2]float64](t, ctx, `window.tcpviz.full()`)
	a := (full[0] + full[1]) / 2
	b := a + 0.001
	if r := os.Getenv("TCPVIZ_REPORT_RANGE"); r != "" { // FROM,TO in seconds
		fmt.Sscanf(r, "%g,%g", &a, &b)
	}
	t0 := time.Now()
	lv := eval[map[string][]int](t, ctx, fmt.Sprintf(`window.tcpviz.setRange(%g, %g), window.tcpviz.levels()`, a, b))
	t.Logf("zoom to %g–%g s: %v; levels drawn: %v", a, b, time.Since(t0), lv)
	if b-a <= 0.001 && lv["seq"][0] != 0 {
		t.Errorf("zoomed to 1 ms, the data segments are drawn at level %d, want 0 (every segment)", lv["seq"][0])
	}
	png, _ = screenshot(t, ctx, "#panels")
	saveShot(t, "large-zoom.png", png)
	// Open every view and zoom into its middle, then compare the first 8:
	// no error anywhere.
	n := eval[int](t, ctx, `(() => { const T = window.tcpviz; let n = 0; for (let v = 0; v < T.viewCount(); v++) { T.open(v); const f = T.full(); T.setRange(f[0] + (f[1] - f[0]) * 0.4, f[0] + (f[1] - f[0]) * 0.6); T.setRange(f[0], f[1]); n++; } const k = Math.min(8, T.viewCount()); if (k >= 2) { T.compare([...Array(k).keys()]); const f = T.full(); T.setRange(f[0] + (f[1] - f[0]) * 0.4, f[0] + (f[1] - f[0]) * 0.6); } return n; })()`)
	if errs := eval[[]string](t, ctx, `window.tcpviz.errors`); len(errs) > 0 {
		t.Errorf("after opening %d views: %v", n, errs)
	}
	t.Logf("opened and zoomed %d views", n)
	if msgs := log.all(); len(msgs) > 0 {
		t.Errorf("console: %v", msgs)
	}
}

// TestBrowserCompare opens a report of the satellite testbed's client
// captures without and with a PEP in compare mode: both runs overlaid on
// every panel, no console errors, not blank.
func TestBrowserCompare(t *testing.T) {
	ctx, log := browser(t)
	path := filepath.Join(t.TempDir(), "sat.html")
	writeReport(t, path, []string{"../testdata/sat/pep-off_window-20KB/client.pcap", "../testdata/sat/pep-on_window-20KB/client.pcap"},
		Options{Compare: []Pick{{Capture: 0, Conn: 1, Dir: 0, Label: "no PEP"}, {Capture: 1, Conn: 1, Dir: 0, Label: "PEP"}}})
	openReport(t, ctx, path)
	title := eval[string](t, ctx, `document.getElementById('viewtitle').textContent`)
	if !strings.Contains(title, "no PEP vs PEP") {
		t.Errorf("view title = %q, want the compare title naming both runs", title)
	}
	names := eval[[]string](t, ctx, `window.tcpviz.panels.seq.layers.map(L => L.name)`)
	if len(names) < 2 || !strings.HasPrefix(names[0], "no PEP: ") || !strings.HasPrefix(names[len(names)-1], "PEP: ") {
		t.Errorf("Stevens graph layers = %v, want both runs", names)
	}
	png, ink := screenshot(t, ctx, "body")
	saveShot(t, "report-compare.png", png)
	if ink < 0.02 {
		t.Errorf("compare view: %.4f of the pixels are not white", ink)
	}

	// The picker: a click on a row opens that connection alone; sorting by
	// bytes a→b puts the largest first.
	title = eval[string](t, ctx, `document.querySelector('#picker tbody tr[data-c="0"] td:nth-child(3)').click(), document.getElementById('viewtitle').textContent`)
	if want := "pep-off_window-20KB/client.pcap — conn 0, data 10.77.1.2:34704 → 10.77.2.2:5201"; title != want {
		t.Errorf("after a click on the first row the view is %q, want %q", title, want)
	}
	first := eval[string](t, ctx, `document.querySelector('#picker th[data-s="10"]').click(), document.querySelector('#picker tbody tr td:nth-child(11)').textContent`)
	if first != "1.66 MB" {
		t.Errorf("sorted by bytes a→b, the first row has %q, want 1.66 MB (the PEP run)", first)
	}
	if msgs := log.all(); len(msgs) > 0 {
		t.Errorf("console: %v", msgs)
	}
}

// TestBrowserAddress: the address names a connection as tcpviz numbers it
// and a direction (#f=1&c=1&d=ab), not a position in the report's list of
// directions, which counts both directions of earlier connections: the
// satellite captures' conn 0 (iperf3's control connection) has data both
// ways, so the old #v=1 is conn 0's b→a, and #c=1 the data connection.
func TestBrowserAddress(t *testing.T) {
	ctx, _ := browser(t)
	path := filepath.Join(t.TempDir(), "sat.html")
	writeReport(t, path, []string{"../testdata/sat/pep-off_window-20KB/client.pcap", "../testdata/sat/pep-on_window-20KB/client.pcap"}, Options{})
	openReport(t, ctx, path)
	title := func(hash string) string {
		eval[bool](t, ctx, `window.tcpviz.stale = true, location.hash = '`+hash+`', location.reload(), true`)
		waitReady(t, ctx)
		return eval[string](t, ctx, `document.getElementById('viewtitle').textContent`)
	}
	for hash, want := range map[string]string{
		"f=0&c=1&d=ab": "pep-off_window-20KB/client.pcap — conn 1, data 10.77.1.2:43528 → 10.77.2.2:5201",
		"f=1&c=1&d=ab": "pep-on_window-20KB/client.pcap — conn 1, data ",
		"f=0&c=0&d=ba": "pep-off_window-20KB/client.pcap — conn 0, data 10.77.2.2:5201 → ",
		"f=1&c=0":      "pep-on_window-20KB/client.pcap — conn 0, data ",
		"v=1":          "pep-off_window-20KB/client.pcap — conn 0, data ", // the old form: view 1
	} {
		if got := title(hash); !strings.Contains(got, want) {
			t.Errorf("#%s opens %q, want %q", hash, got, want)
		}
	}
	// A connection the report does not hold opens the default view and
	// says so (trial14 B9: it used to be silent).
	if got := title("f=1&c=3&d=ab"); !strings.Contains(got, "conn 1, data ") {
		t.Errorf("#f=1&c=3&d=ab opens %q, want the default view", got)
	}
	if st := eval[string](t, ctx, `document.getElementById('status').textContent`); !strings.Contains(st, "the address names capture 1 conn 3 direction ab, which this report does not hold") {
		t.Errorf("#f=1&c=3&d=ab: status %q does not say the connection is not in the report", st)
	}
	// Zoomed, the address names the capture, connection and direction.
	eval[bool](t, ctx, `window.tcpviz.stale = true, location.hash = 'f=1&c=1&d=ab', location.reload(), true`)
	waitReady(t, ctx)
	eval[bool](t, ctx, `window.tcpviz.setRange(1, 2), true`)
	time.Sleep(300 * time.Millisecond)
	if h := eval[string](t, ctx, `location.hash`); !strings.HasPrefix(h, "#f=1&c=1&d=ab&x=1.000000000,2.000000000") {
		t.Errorf("location.hash = %q, want #f=1&c=1&d=ab&x=1.000000000,2.000000000", h)
	}
}

// largeCapture writes a bulk transfer of n data segments of 1 448 bytes,
// one every 50 µs, each second one ACKed 5 ms later (snap length 96), and
// returns its path.
func largeCapture(t *testing.T, n int) string {
	t.Helper()
	t0 := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	c := pcaptest.NewConn(netip.MustParseAddrPort("192.0.2.1:40000"), netip.MustParseAddrPort("198.51.100.1:5201"), 1000, 7000)
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapNano, LinkType: pcaptest.LinkRaw, Snaplen: 96})
	for _, s := range c.Handshake(t0, 5*time.Millisecond) {
		f.Add(s.T, 0, s.IP())
	}
	var acks []pcaptest.Segment
	for i := range n {
		ts := t0.Add(10*time.Millisecond + time.Duration(i)*50*time.Microsecond)
		for len(acks) > 0 && !acks[0].T.After(ts) {
			f.Add(acks[0].T, 0, acks[0].IP())
			acks = acks[1:]
		}
		s := c.Data(ts, pcaptest.C2S, 1448)
		f.Add(s.T, 0, s.IP())
		if i%2 == 1 {
			acks = append(acks, c.Ack(ts.Add(5*time.Millisecond), pcaptest.S2C, c.Next(pcaptest.C2S), 65535))
		}
	}
	for _, a := range acks {
		f.Add(a.T, 0, a.IP())
	}
	p := filepath.Join(t.TempDir(), "large.pcap")
	if err := f.WriteFile(p); err != nil {
		t.Fatal(err)
	}
	return p
}
