package tcpviz

import (
	"os/exec"
	"strings"
	"testing"
)

// allowed lists, for each package of the module, the module packages it may
// import: dependencies point one way, from cmd down to capture
// (docs/architecture.md).
var allowed = map[string][]string{
	"":                               {"query", "export", "figures", "plot", "internal/atomicfile"},
	"internal/seq":                   {},
	"capture":                        {"internal/seq"},
	"capture/live":                   {"capture"},
	"flows":                          {"capture", "internal/seq", "internal/prefault"},
	"tcpanalysis":                    {"capture", "flows", "internal/seq", "internal/hwprefetch", "internal/prefault"},
	"query":                          {"tcpanalysis", "flows", "capture", "internal/atomicfile", "internal/prefault", "internal/textcol"},
	"stats":                          {},
	"campaign":                       {"query", "tcpanalysis", "flows", "capture", "stats", "pep", "internal/seq", "internal/textcol"},
	"plot":                           {"tcpanalysis", "flows", "capture"},
	"testbed/sat":                    {"query", "tcpanalysis", "flows"},
	"testbed/manet":                  {},
	"internal/sharedtest":            {},
	"internal/atomicfile":            {},
	"internal/cpuprof":               {},
	"internal/hwprefetch":            {},
	"internal/prefault":              {},
	"internal/imgtest":               {},
	"internal/textcol":               {},
	"internal/interrupt":             {"internal/atomicfile"},
	"internal/pcaptest":              {},
	"internal/fuzzseed":              {"capture", "internal/pcaptest"},
	"internal/pcaptest/cmd/gencap":   {"internal/pcaptest"},
	"internal/pcaptest/cmd/gensynth": {"internal/pcaptest"},
	"cmd/tcpviz":                     {"*"},
	"figures":                        {"query", "plot", "compare", "export", "pep", "tcpanalysis", "flows", "internal/atomicfile"},
	"compare":                        {"query", "plot", "tcpanalysis", "flows", "capture", "pep", "internal/seq"},
	"export":                         {"query", "campaign", "tcpanalysis", "flows", "capture", "internal/atomicfile", "internal/textcol"},
	"pep":                            {"tcpanalysis", "flows", "capture", "internal/seq", "internal/textcol"},
	"report":                         {"query", "compare", "plot", "tcpanalysis", "flows", "capture", "pep", "internal/seq", "internal/atomicfile", "internal/textcol"},
	"study":                          {"campaign", "stats", "plot", "export", "query", "internal/textcol"},
	"monitor":                        {"query", "export", "plot", "tcpanalysis", "flows", "capture", "capture/live"},
}

// thirdParty lists, for the module paths of third-party libraries that
// shape the architecture, the only packages that may import them: one
// package draws, one reads packets, one parses the command line.
var thirdParty = map[string][]string{
	"gonum.org/v1/plot":            {"plot"},
	"golang.org/x/image/vector":    {"plot"},
	"github.com/golang/freetype":   {"plot"},
	"github.com/gopacket/gopacket": {"capture", "capture/live", "internal/pcaptest"},
	"github.com/spf13/cobra":       {"cmd/tcpviz"},
}

// testThirdParty are exceptions for test files only: the satellite
// testbed's integration test decodes live captures with gopacket.
var testThirdParty = map[string][]string{
	"github.com/gopacket/gopacket": {"testbed/sat"},
}

// TestImportDAG fails when a package imports a module package its row in
// allowed does not list (cf. cilium's depguard), or a third-party library
// that thirdParty reserves for other packages.
func TestImportDAG(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}} | {{join .TestImports \" \"}} {{join .XTestImports \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/tcpviz/tcpviz"
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 10 {
		t.Fatalf("go list found %d packages", len(lines))
	}
	for _, line := range lines {
		code, tests, _ := strings.Cut(line, "|")
		f := strings.Fields(code)
		pkg := strings.TrimPrefix(strings.TrimPrefix(f[0], mod), "/")
		ok, known := allowed[pkg]
		if !known {
			t.Errorf("package %q is not in the import table of dag_test.go", pkg)
			continue
		}
		checkThird := func(imp string, test bool) {
			for lib, who := range thirdParty {
				if imp != lib && !strings.HasPrefix(imp, lib+"/") {
					continue
				}
				if contains(who, pkg) || (test && contains(testThirdParty[lib], pkg)) {
					continue
				}
				t.Errorf("%s imports %s: only %v may (dag_test.go)", pkg, imp, who)
			}
		}
		for _, imp := range strings.Fields(tests) {
			checkThird(imp, true)
		}
		for _, imp := range f[1:] {
			checkThird(imp, false)
			if !strings.HasPrefix(imp, mod+"/") || (len(ok) == 1 && ok[0] == "*") {
				continue
			}
			if dep := strings.TrimPrefix(imp, mod+"/"); !contains(ok, dep) {
				t.Errorf("%s imports %s: not allowed (dag_test.go)", pkg, dep)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
