package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// TestFlowsPartial: flows over several captures of which some cannot be
// read lists every readable one, names each failed one on stderr, and ends
// with exit 3 (partial), as report does — it printed nothing and exited 2.
// The same in the table, CSV and JSON, on standard output and in -o files
// (written atomically: a partial result is written; when no capture can
// be read, exit 2 and the -o file is left as it was). A capture that fails
// after it opened (a record over the cap at frame 1) is left out whole.
func TestFlowsPartial(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.pcap", faultConn(pcaptest.PcapMicro))
	good2 := write("good2.pcapng", faultConn(pcaptest.Pcapng))
	garbage := write("garbage.pcap", []byte(strings.Repeat("not a capture ", 20)))
	ng := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng})
	ng.AddInterface(pcaptest.LinkEthernet, 0, 0, pcaptest.NoSnaplen)
	ng.Add(time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC), 0, make([]byte, 300000)) // over the 262144-byte cap: an error at frame 1
	bad := write("bad.pcapng", ng.Bytes())
	args := []string{good, garbage, bad, good2}
	wantErr := "partial: 2 of 4 captures could not be read: " + garbage + ", " + bad
	for _, tt := range []struct {
		name  string
		flags []string
		out   string // -o file, "" for standard output
	}{
		{"table", nil, ""}, {"csv", []string{"--csv"}, ""}, {"json", []string{"--json"}, ""},
		{"table-o", nil, "flows.txt"}, {"csv-o", nil, "flows.csv"}, {"json-o", nil, "flows.json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := append([]string{"flows"}, tt.flags...)
			if tt.out != "" {
				a = append(a, "-o", filepath.Join(dir, tt.out))
			}
			stdout, stderr, err := runCLI(t, append(a, args...)...)
			if exitCode(err) != 3 || err.Error() != wantErr {
				t.Fatalf("exit %d, %v; want 3, %q", exitCode(err), err, wantErr)
			}
			for _, p := range []string{garbage, bad} {
				if !strings.Contains(stderr, "warning: "+p+": ") || !strings.Contains(stderr, "left out of the flows output") {
					t.Errorf("stderr does not name %s as left out:\n%s", p, stderr)
				}
			}
			got := stdout
			if tt.out != "" {
				b, err := os.ReadFile(filepath.Join(dir, tt.out))
				if err != nil {
					t.Fatal(err)
				}
				got = string(b)
			}
			if strings.Contains(got, garbage) || strings.Contains(got, bad) {
				t.Errorf("output lists a capture that could not be read:\n%s", got)
			}
			switch {
			case strings.HasSuffix(tt.name, "json") || tt.out == "flows.json":
				var doc struct {
					Files []struct {
						File  string            `json:"file"`
						Conns []json.RawMessage `json:"conns"`
					} `json:"files"`
				}
				if err := json.Unmarshal([]byte(got), &doc); err != nil {
					t.Fatalf("JSON: %v\n%s", err, got)
				}
				if len(doc.Files) != 2 || doc.Files[0].File != good || doc.Files[1].File != good2 || len(doc.Files[0].Conns) != 1 || len(doc.Files[1].Conns) != 1 {
					t.Errorf("JSON files %+v, want good.pcap and good2.pcapng with one connection each", doc.Files)
				}
			case strings.Contains(tt.name, "csv"):
				lines := strings.Split(strings.TrimSpace(got), "\n")
				if len(lines) != 3 || !strings.HasPrefix(lines[1], good+",0,") || !strings.HasPrefix(lines[2], good2+",0,") {
					t.Errorf("CSV:\n%s\nwant the header and a row of each readable capture", got)
				}
			default:
				if !strings.Contains(got, good+": pcap, 8 frames, 8 TCP segments, 1 connections") || !strings.Contains(got, good2+": pcapng, 8 frames, 8 TCP segments, 1 connections") {
					t.Errorf("table:\n%s\nwant both readable captures", got)
				}
			}
		})
	}
	// None readable: exit 2, nothing written, and the -o file untouched.
	for _, f := range [][]string{nil, {"--csv"}, {"--json"}} {
		stdout, _, err := runCLI(t, append(append([]string{"flows"}, f...), garbage, bad)...)
		if exitCode(err) != 2 || stdout != "" {
			t.Errorf("flows %v, no capture readable: exit %d, stdout %q; want 2, nothing", f, exitCode(err), stdout)
		}
	}
	keep := write("keep.csv", []byte("old\n"))
	_, _, err := runCLI(t, "flows", "-o", keep, garbage, bad)
	if exitCode(err) != 2 || err.Error() != "none of the 2 captures could be read" {
		t.Errorf("no capture readable: exit %d, %v; want 2", exitCode(err), err)
	}
	if b, _ := os.ReadFile(keep); string(b) != "old\n" {
		t.Errorf("-o file replaced: %q", b)
	}
	// One capture: its own error, exit 2, as before.
	_, _, err = runCLI(t, "flows", garbage)
	if exitCode(err) != 2 || !strings.HasPrefix(err.Error(), garbage+": not a pcap or pcapng capture") {
		t.Errorf("one unreadable capture: exit %d, %v; want 2 naming it", exitCode(err), err)
	}
}
