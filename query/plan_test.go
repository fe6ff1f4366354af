package query

import (
	"errors"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// TestPlanRTT: the summary table alone keeps bounded quantiles only; a
// figure keeps the samples; rows of whole connections are streamed with
// nothing kept; rows of a window need the samples (and the reference
// point) first.
func TestPlanRTT(t *testing.T) {
	whole, windowed := All(), All()
	windowed.From = time.Second
	for _, c := range []struct {
		name    string
		sel     Selection
		w       Want
		samples bool
		stream  bool
		parts   tcpanalysis.SeriesParts
	}{
		{"table", whole, Want{}, false, false, tcpanalysis.PartEvents},
		{"figure", whole, Want{Figure: true}, true, false, tcpanalysis.PartEvents | tcpanalysis.PartRTT},
		{"rows", whole, Want{Rows: true}, false, true, tcpanalysis.PartEvents},
		{"rows of a window", windowed, Want{Rows: true}, true, false, tcpanalysis.PartEvents | tcpanalysis.PartRTT},
		{"table of a window", windowed, Want{}, true, false, tcpanalysis.PartEvents | tcpanalysis.PartRTT},
	} {
		o, stream := PlanRTT(c.sel, c.w, true)
		if o.RTTSamples != c.samples || stream != c.stream || o.Parts != c.parts || o.RTT == stream || !o.Events || !o.OneConn {
			t.Errorf("%s: %+v stream %v; want samples %v stream %v parts %v", c.name, o, stream, c.samples, c.stream, c.parts)
		}
	}
}

// TestPlans: each verb keeps its parts of the chosen connection only; the
// report keeps everything.
func TestPlans(t *testing.T) {
	bulk := All()
	bulk.Ref = RefBulk
	segs := tcpanalysis.PartSegs | tcpanalysis.PartAcks
	for name, c := range map[string]struct {
		got, want Options
	}{
		"events":         {PlanEvents(Want{}), Options{Events: true, OneConn: true, Parts: tcpanalysis.PartEvents}},
		"events report":  {PlanEvents(Want{Report: true}), Options{}},
		"window":         {PlanWindow(All(), Want{}), Options{OneConn: true, Parts: tcpanalysis.PartWindow}},
		"window bulk":    {PlanWindow(bulk, Want{}), Options{OneConn: true, Parts: tcpanalysis.PartWindow | tcpanalysis.PartSegs}},
		"rate":           {PlanRate(time.Second, Want{Rows: true}), Options{Interval: time.Second, OneConn: true, Parts: segs | tcpanalysis.PartEvents}},
		"rate report":    {PlanRate(time.Second, Want{Report: true}), Options{Interval: time.Second}},
		"seq":            {PlanSeq(Want{Figure: true}, false), Options{OneConn: true, Parts: segs | tcpanalysis.PartSACKs}},
		"seq pep":        {PlanSeq(Want{Figure: true}, true), Options{Events: true, OneConn: true, Parts: segs | tcpanalysis.PartSACKs | tcpanalysis.PartEvents}},
		"seq pep report": {PlanSeq(Want{Report: true}, true), Options{Events: true}},
	} {
		g, w := c.got, c.want
		if g.Events != w.Events || g.OneConn != w.OneConn || g.Parts != w.Parts || g.Interval != w.Interval || g.RTT != w.RTT {
			t.Errorf("%s: %+v, want %+v", name, g, w)
		}
	}
}

func TestRTTMethods(t *testing.T) {
	m, err := RTTMethods("ts")
	if err != nil || len(m) != 2 || !m[MetricRTTTS] || !m[MetricRTTHandshake] {
		t.Errorf("ts: %v, %v", m, err)
	}
	if m, _ := RTTMethods(""); len(m) != 3 {
		t.Errorf(`"": %v, want all three`, m)
	}
	_, err = RTTMethods("karn")
	if !errors.Is(err, ErrMethod) || err.Error() != `"karn": want ack, ts or both` {
		t.Errorf("karn: %v", err)
	}
}

// TestShareInterval: every view gets the finest width.
func TestShareInterval(t *testing.T) {
	vs := []*View{{Interval: time.Second}, {Interval: 200 * time.Millisecond}, {Interval: 500 * time.Millisecond}}
	ShareInterval(vs)
	for i, v := range vs {
		if v.Interval != 200*time.Millisecond {
			t.Errorf("view %d: %v", i, v.Interval)
		}
	}
	ShareInterval(nil)
}
