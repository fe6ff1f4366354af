package tcpviz

import (
	"os/exec"
	"strings"
	"testing"
)

// allowed lists, for each package of the module, the module packages it may
// import: dependencies point one way, from cmd down to capture.
var allowed = map[string][]string{
	"":                               {},
	"internal/seq":                   {},
	"capture":                        {"internal/seq"},
	"capture/live":                   {"capture"},
	"flows":                          {"capture", "internal/seq"},
	"tcpanalysis":                    {"capture", "flows", "internal/seq"},
	"stats":                          {},
	"campaign":                       {"tcpanalysis", "flows", "capture", "stats", "pep", "internal/seq"},
	"plot":                           {"tcpanalysis", "flows", "capture"},
	"testbed/sat":                    {},
	"testbed/manet":                  {},
	"internal/sharedtest":            {},
	"internal/pcaptest":              {},
	"internal/fuzzseed":              {"capture", "internal/pcaptest"},
	"internal/pcaptest/cmd/gencap":   {"internal/pcaptest"},
	"internal/pcaptest/cmd/gensynth": {"internal/pcaptest"},
	"cmd/tcpviz":                     {"*"},
	"compare":                        {"tcpanalysis", "flows", "capture", "pep", "internal/seq"},
	"pep":                            {"tcpanalysis", "flows", "capture", "internal/seq"},
	"report":                         {"tcpanalysis", "flows", "capture", "pep", "internal/seq"},
}

// TestImportDAG fails when a package imports a module package its row in
// allowed does not list (cf. cilium's depguard).
func TestImportDAG(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	const mod = "github.com/tcpviz/tcpviz"
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(f[0], mod), "/")
		ok, known := allowed[pkg]
		if !known {
			t.Errorf("package %q is not in the import table of dag_test.go", pkg)
			continue
		}
		if len(ok) == 1 && ok[0] == "*" {
			continue
		}
		for _, imp := range f[1:] {
			if !strings.HasPrefix(imp, mod+"/") {
				continue
			}
			dep := strings.TrimPrefix(imp, mod+"/")
			found := false
			for _, a := range ok {
				found = found || a == dep
			}
			if !found {
				t.Errorf("%s imports %s: not allowed (dag_test.go)", pkg, dep)
			}
		}
	}
}
