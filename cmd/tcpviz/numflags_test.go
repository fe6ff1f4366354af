package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// leafCommands walks the command tree: every runnable verb, with its path
// ("testbed manet").
func leafCommands(c *cobra.Command, path []string, visit func([]string, *cobra.Command)) {
	for _, s := range c.Commands() {
		p := append(append([]string{}, path...), s.Name())
		if s.Runnable() {
			visit(p, s)
		}
		leafCommands(s, p, visit)
	}
}

// TestNumRulesCoverEveryFlag: every numeric flag of every verb has a rule
// in numRules, so a new flag cannot slip through unchecked.
func TestNumRulesCoverEveryFlag(t *testing.T) {
	root := newRoot(&env{ctx: context.Background(), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}})
	leafCommands(root, nil, func(p []string, c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if numericTypes[f.Value.Type()] {
				if _, ok := ruleOf(c, f); !ok {
					t.Errorf("tcpviz %s --%s (%s): no rule in numRules", strings.Join(p, " "), f.Name, f.Value.Type())
				}
			}
		})
	})
}

// badValues are values just outside r (and NaN, ±Inf for floats), as
// typed on a command line of a flag of type typ.
func badValues(r numRule, typ string) []string {
	num := func(v float64) string {
		if typ == "duration" {
			return fmt.Sprintf("%gs", v)
		}
		return fmt.Sprintf("%g", v)
	}
	var out []string
	if typ == "float64" || typ == "float64Slice" {
		out = append(out, "NaN", "Inf", "-Inf")
	}
	step := 1.0
	if typ == "float64" || typ == "float64Slice" || typ == "duration" {
		step = 0.5
	}
	if r.minOpen {
		out = append(out, num(r.min))
	} else if !(typ == "uint64" && r.min == 0) {
		out = append(out, num(r.min-step))
	}
	if !math.IsInf(r.max, 1) {
		if r.maxOpen {
			out = append(out, num(r.max))
		} else {
			out = append(out, num(r.max+step))
		}
	}
	return out
}

// TestNumFlagsRefused: for every verb and every numeric flag, a value
// outside its rule (NaN, ±Inf, 0 or negative where meaningless, past the
// maximum) is a usage error naming the flag, exit 1, before any capture is
// read (the capture named does not exist).
func TestNumFlagsRefused(t *testing.T) {
	dir := t.TempDir()
	never := filepath.Join(dir, "never-read.pcap")
	args := map[string][]string{
		"compare":       {"a=" + never},
		"testbed manet": {"--out", dir},
		"testbed sat":   {"--out", dir},
	}
	root := newRoot(&env{ctx: context.Background(), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}})
	cases := 0
	leafCommands(root, nil, func(p []string, c *cobra.Command) {
		verb := strings.Join(p, " ")
		a, ok := args[verb]
		if !ok {
			a = []string{never}
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			r, ok := ruleOf(c, f)
			if !ok || !numericTypes[f.Value.Type()] {
				return
			}
			for _, bad := range badValues(r, f.Value.Type()) {
				cases++
				cl := append(append(append([]string{}, p...), a...), "--"+f.Name+"="+bad)
				_, _, err := runCLI(t, cl...)
				if exitCode(err) != 1 || strings.Contains(err.Error(), "never-read") || !strings.Contains(err.Error(), "--"+f.Name) {
					t.Errorf("tcpviz %s: exit %d, %v; want a usage error naming --%s", strings.Join(cl, " "), exitCode(err), err, f.Name)
				}
			}
		})
	})
	t.Logf("%d cases", cases)
	if cases < 150 {
		t.Errorf("only %d cases: the command tree walk missed verbs", cases)
	}
}

// TestTrialBadValues: the values of the fresh-user trial (notes/trial13.md
// B1, B2), each refused with the message the user sees.
func TestTrialBadValues(t *testing.T) {
	never := filepath.Join(t.TempDir(), "never-read.pcap")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"seq", never, "-o", "x.png", "--size", "NaNxNaNcm"}, "--size: size \"NaNxNaNcm\": each side must be between 2 cm and 100 cm"},
		{[]string{"seq", never, "-o", "x.png", "--size", "0x6cm"}, "each side must be between 2 cm and 100 cm"},
		{[]string{"seq", never, "-o", "x.png", "--font-size", "NaN"}, "--font-size NaN"},
		{[]string{"tput", never, "--at", "NaN"}, "--at NaN"},
		{[]string{"seq", never, "-o", "x.png", "--dpi", "0"}, "--dpi 0: want 30 to 2400 dpi"},
		{[]string{"seq", never, "--conn", "-1"}, "--conn -1: want a connection index ≥ 0"},
		{[]string{"tput", never, "--interval", "0"}, "--interval 0s: want a duration ≥ 1µs (e.g. 100ms, 2s)"},
		{[]string{"goodput", never, "--end", "0"}, "--end 0: want a capture time in seconds, > 0"},
		{[]string{"rtt", never, "--port", "0"}, "--port 0: want a port 1-65535"},
	} {
		_, _, err := runCLI(t, c.args...)
		if exitCode(err) != 1 || !strings.Contains(fmt.Sprint(err), c.want) {
			t.Errorf("tcpviz %s: exit %d, %v; want exit 1 with %q", strings.Join(c.args, " "), exitCode(err), err, c.want)
		}
	}
}

// TestPrintedDefaultsTypable: every "(default X)" help prints for a
// numeric flag of any verb is a value the verb accepts when typed (trial:
// --conn -1 was refused beside "(default -1)"); the defaults that only
// stand for "choose" are not printed, and typing them is refused with a
// hint to leave the flag out.
func TestPrintedDefaultsTypable(t *testing.T) {
	root := newRoot(&env{ctx: context.Background(), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}})
	hidden := map[string]bool{}
	leafCommands(root, nil, func(p []string, c *cobra.Command) {
		verb := strings.Join(p, " ")
		usages := c.Flags().FlagUsages()
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if !numericTypes[f.Value.Type()] {
				return
			}
			if f.Annotations[sentinelKey] != nil {
				hidden[verb+" --"+f.Name] = true
			}
			// pflag prints "(default DefValue)" after the usage when the
			// default is not its type's zero.
			printed := false
			for _, l := range strings.Split(usages, "\n") {
				fl := strings.Fields(l)
				if len(fl) > 1 && (fl[0] == "--"+f.Name || fl[1] == "--"+f.Name) && strings.HasSuffix(l, "(default "+f.DefValue+")") {
					printed = true
				}
			}
			def := f.DefValue
			if printed && !strings.HasPrefix(def, "[") { // a slice: nothing to type
				fresh := newRoot(&env{ctx: context.Background(), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}})
				fc, _, err := fresh.Find(p)
				if err != nil {
					t.Fatal(err)
				}
				if err := fc.Flags().Set(f.Name, def); err != nil {
					t.Errorf("tcpviz %s --%s %s (the printed default): %v", verb, f.Name, def, err)
				} else if err := checkNumFlags(fc); err != nil {
					t.Errorf("tcpviz %s: help prints (default %s) for --%s, typed it is refused: %v", verb, def, f.Name, err)
				}
			}
		})
	})
	for _, want := range []string{"seq --conn", "rtt --conn", "retrans --conn", "window --conn", "tput --conn", "tput --interval", "compare --interval"} {
		if !hidden[want] {
			t.Errorf("%s: default not marked as a hidden marker; hidden: %v", want, hidden)
		}
	}
	never := filepath.Join(t.TempDir(), "never-read.pcap")
	for _, c := range [][]string{{"seq", never, "--conn", "-1"}, {"tput", never, "--interval", "0"}, {"compare", "a=" + never, "--interval", "0"}} {
		_, _, err := runCLI(t, c...)
		if exitCode(err) != 1 || !strings.Contains(fmt.Sprint(err), "leave "+c[2]+" out for its default") {
			t.Errorf("tcpviz %s: exit %d, %v; want exit 1 with a hint to leave %s out", strings.Join(c, " "), exitCode(err), err, c[2])
		}
	}
	// Still printed: defaults a user may type.
	var out bytes.Buffer
	r := newRoot(&env{ctx: context.Background(), stdout: &out, stderr: &out})
	r.SetArgs([]string{"seq", "--help"})
	if err := r.Execute(); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "(default 150)") || !strings.Contains(s, "leaves it unknown (default -1)") || strings.Contains(s, "payload bytes (default -1)") {
		t.Errorf("seq --help: want --dpi (default 150) and --wscale (default -1) printed, --conn's -1 not:\n%s", s)
	}
}

// TestAbsurdValuesRefusedUnread: absurd values that used to be refused
// only after the whole capture was read (tput --interval 1ns: 2 s on the
// 1.2 GB benchmark capture), or accepted and ignored (--path-rtt without
// --pep), or overflowed into a wrong message (--from 1e300: "bad time
// range"), are usage errors naming the flag, found before the capture is
// opened (it does not exist).
func TestAbsurdValuesRefusedUnread(t *testing.T) {
	never := filepath.Join(t.TempDir(), "never-read.pcap")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tput", never, "--interval", "1ns"}, "--interval 1ns: want a duration ≥ 1µs"},
		{[]string{"tput", never, "--interval", "1ms", "--from", "10", "--to", "1100"}, "--interval 1ms: bad interval: the window from 10s to 18m20s takes 1090000 intervals, at most 1048575 allowed; want at least 1.039506ms"},
		{[]string{"compare", "a=" + never, "--metric", "goodput", "--interval", "1ns"}, "--interval 1ns: want a duration ≥ 1µs"},
		{[]string{"compare", "a=" + never, "--interval", "10us", "--to", "100"}, "--interval 10µs: bad interval: the window from 0s to 1m40s takes 10000000 intervals"},
		{[]string{"seq", never, "--from", "1e300"}, "--from 1e300: want seconds 0-9223372036 or a duration (e.g. 700ms)"},
		{[]string{"window", never, "--to", "1e12"}, "--to 1e12: want seconds 0-9223372036 or a duration (e.g. 700ms)"},
		{[]string{"tput", never, "--at", "1e300"}, "--at 1e+300: want a number of seconds 0-9223372036"},
		{[]string{"goodput", never, "--end", "1e300"}, "--end 1e+300: want a capture time in seconds, > 0 and ≤ 9223372036"},
		{[]string{"goodput", never, "--interval", "1e300:2e300"}, "START is past 9223372036 s"},
		{[]string{"rtt", never, "--two-ifaces"}, "--two-ifaces needs --pep"},
		{[]string{"flows", never, "--path-rtt", "0.5us"}, "--path-rtt 500ns: want a round-trip time ≥ 1µs"},
		{[]string{"tput", never, "--path-rtt", "-1s"}, "--path-rtt -1s: want a round-trip time ≥ 1µs"},
		{[]string{"goodput", never, "--path-rtt", "1ns"}, "--path-rtt 1ns: want a round-trip time ≥ 1µs"},
		// Lower limits (trial 15): a typed -1 for the auto default, a
		// 1 ns refresh, RTT or live capture.
		{[]string{"goodput", never, "--min-bytes", "-1"}, "--min-bytes -1: want a byte count ≥ 0; leave --min-bytes out for its default"},
		{[]string{"seq", never, "--pep", "--path-rtt", "1ns"}, "--path-rtt 1ns: want a round-trip time ≥ 1µs"},
		{[]string{"flows", "-i", "lo", "--every", "1ns", "--duration", "2s"}, "--every 1ns: want a refresh period ≥ 100ms"},
		{[]string{"flows", "-i", "lo", "--duration", "1ns"}, "--duration 1ns: want a capture time ≥ 1ms"},
	} {
		_, _, err := runCLI(t, c.args...)
		if exitCode(err) != 1 || !strings.Contains(fmt.Sprint(err), c.want) {
			t.Errorf("tcpviz %s: exit %d, %v; want exit 1 with %q", strings.Join(c.args, " "), exitCode(err), err, c.want)
		}
	}
	// Still accepted: the narrowest interval, a window that fits.
	// --path-rtt is evidence for every PEP verdict (notes, marks, rows):
	// no --pep needed, on any verb that has it.
	for _, args := range [][]string{{"tput", never, "--interval", "1us"}, {"tput", never, "--interval", "1ms", "--from", "10", "--to", "1000"}, {"rtt", never, "--pep", "--path-rtt", "600ms"},
		{"rtt", never, "--path-rtt", "600ms"}, {"seq", never, "--path-rtt", "600ms"}, {"compare", "a=" + never, "--path-rtt", "600ms"},
		{"flows", never, "--path-rtt", "600ms"}, {"tput", never, "--path-rtt", "600ms"}} {
		if _, _, err := runCLI(t, args...); exitCode(err) != 2 {
			t.Errorf("tcpviz %s: exit %d, %v; want the options accepted and the missing capture refused (exit 2)", strings.Join(args, " "), exitCode(err), err)
		}
	}
}

// TestFlagParseErrors: a value pflag cannot parse is refused naming the
// flag and what it wants, never with Go's parser text ("strconv.ParseInt:
// parsing …"); --from and --to take Go durations as well as seconds, as
// --interval does (docs/schema.md), and 700ms selects what 0.7 does.
func TestFlagParseErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"seq", synth, "--conn", "1e3"}, "--conn 1e3: want a connection index ≥ 0 (as 'tcpviz flows' lists), a whole number"},
		{[]string{"tput", synth, "--bytes", "1e30"}, "--bytes 1e30: want a byte count ≥ 1, a whole number"},
		{[]string{"seq", synth, "--from", "1x"}, "--from 1x: want seconds 0-9223372036 or a duration (e.g. 700ms)"},
		{[]string{"seq", synth, "--from", "-1"}, "--from -1s: want seconds 0-9223372036 or a duration (e.g. 700ms)"},
		{[]string{"seq", synth, "--dpi", "1.5"}, "--dpi 1.5: want 30 to 2400 dpi, a whole number"},
		// Below the clock's 1 ns: refused, not read as 0 ("to the end").
		{[]string{"tput", synth, "--to", "1e-10"}, "--to 1e-10: want seconds 0-9223372036 or a duration (e.g. 700ms)"},
		{[]string{"tput", synth, "--to", "0.4ns"}, "--to 0.4ns: want seconds 0-9223372036 or a duration (e.g. 700ms)"},
	} {
		_, _, err := runCLI(t, c.args...)
		if err == nil || err.Error() != c.want {
			t.Errorf("tcpviz %s: %v, want %q", strings.Join(c.args, " "), err, c.want)
		}
	}
	var outs []string
	for _, w := range [][2]string{{"0.7", "2.5"}, {"700ms", "2500ms"}} {
		out, _, err := runCLI(t, "retrans", synth, "--from", w[0], "--to", w[1], "--csv")
		if err != nil {
			t.Fatalf("retrans --from %s --to %s: %v", w[0], w[1], err)
		}
		outs = append(outs, out)
	}
	if outs[0] != outs[1] || strings.Count(outs[0], "\n") < 3 {
		t.Errorf("retrans --from 700ms --to 2500ms gave %d lines, --from 0.7 --to 2.5 %d; want the same rows", strings.Count(outs[1], "\n"), strings.Count(outs[0], "\n"))
	}
}
