package manet

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// ErrNoNS3 reports that the ns-3 headers or libraries were not found.
var ErrNoNS3 = errors.New("ns-3 3.37 development files not found (install ns3 libns3-dev: apt-get install -y ns3 libns3-dev)")

// ErrNoCompiler reports that no C++ compiler was found.
var ErrNoCompiler = errors.New("C++ compiler not found (install g++ or set CXX)")

// ns3Modules are the ns-3 libraries the scenario links against, without the
// library prefix and suffix of the installation.
var ns3Modules = []string{
	"core", "network", "internet", "wifi", "mobility", "aodv", "olsr", "dsdv",
	"applications", "flow-monitor", "propagation", "stats",
}

// baseCXXFlags are the compiler flags before include and library options.
var baseCXXFlags = []string{"-O2", "-std=c++17", "-w"}

// BuildOptions tell Build where to look; the zero value autodetects all.
type BuildOptions struct {
	// CacheDir holds built binaries. "" means DefaultCacheDir().
	CacheDir string
	// CXX is the compiler. "" means $CXX, else g++.
	CXX string
	// IncludeDir contains ns3/core-module.h. "" means search the usual places.
	IncludeDir string
	// LibDir contains the libns3 libraries. "" means search the usual places.
	LibDir string
	// NS3Dir is another ns-3 tree to build against: an installation prefix
	// (DIR/include/ns3*/ns3, DIR/lib*) or a CMake build tree
	// (DIR/build/include/ns3, DIR/build/lib). IncludeDir and LibDir, when
	// set, win over what NS3Dir yields.
	NS3Dir string
	// ExtraModules are further ns-3 modules to link, e.g. a user's routing
	// module "myrouting" (libns3.42-myrouting-default.so in a build tree).
	ExtraModules []string
	// HookFile is a C++ file compiled into the scenario that defines the
	// routing-helper hook TcpvizRoutingHook (docs/testbed-manet.md#routing-hook).
	HookFile string
	// Logf receives a line when a compilation starts. nil means silent.
	Logf func(format string, args ...any)
}

// Toolchain is a compiler with the flags that build the scenario.
type Toolchain struct {
	CXX        string   // compiler path
	Hook       string   // routing-hook source file, "" for none
	IncludeDir string   // directory holding ns3/core-module.h
	LibDir     string   // directory holding the ns-3 libraries
	Libs       []string // -l names, e.g. "ns3-core"
}

// DefaultCacheDir returns $TCPVIZ_CACHE_DIR if set, else
// $XDG_CACHE_HOME/tcpviz (or ~/.cache/tcpviz, via os.UserCacheDir).
func DefaultCacheDir() (string, error) {
	if d := os.Getenv("TCPVIZ_CACHE_DIR"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find cache directory: %w", err)
	}
	return filepath.Join(d, "tcpviz"), nil
}

// FindToolchain locates the compiler, the ns-3 headers and the ns-3
// libraries. Its errors wrap ErrNoCompiler or ErrNoNS3.
func FindToolchain(opts BuildOptions) (Toolchain, error) {
	var tc Toolchain
	cxx := opts.CXX
	if cxx == "" {
		cxx = os.Getenv("CXX")
	}
	if cxx == "" {
		cxx = "g++"
	}
	p, err := exec.LookPath(cxx)
	if err != nil {
		return tc, fmt.Errorf("%w: %s", ErrNoCompiler, cxx)
	}
	tc.CXX = p

	incs := []string{opts.IncludeDir}
	if opts.IncludeDir == "" && opts.NS3Dir != "" {
		incs = ns3DirIncludes(opts.NS3Dir)
	} else if opts.IncludeDir == "" {
		incs = []string{"/usr/include", "/usr/local/include", "/usr/include/ns3.37", "/usr/local/include/ns3.37"}
	}
	for _, d := range incs {
		if fileExists(filepath.Join(d, "ns3", "core-module.h")) {
			tc.IncludeDir = d
			break
		}
	}
	if tc.IncludeDir == "" {
		return tc, fmt.Errorf("%w: no ns3/core-module.h in %s", ErrNoNS3, strings.Join(incs, ", "))
	}

	libDirs := []string{opts.LibDir}
	if opts.LibDir == "" && opts.NS3Dir != "" {
		libDirs = []string{filepath.Join(opts.NS3Dir, "build", "lib"), filepath.Join(opts.NS3Dir, "lib"),
			filepath.Join(opts.NS3Dir, "lib", multiarch()), filepath.Join(opts.NS3Dir, "lib64")}
	} else if opts.LibDir == "" {
		libDirs = []string{"/usr/lib/" + multiarch(), "/usr/lib64", "/usr/lib", "/usr/local/lib", "/usr/local/lib64"}
	}
	for _, d := range libDirs {
		if libs, ok := ns3Libs(d, opts.ExtraModules); ok {
			tc.LibDir, tc.Libs = d, libs
			break
		}
	}
	if tc.LibDir == "" {
		return tc, fmt.Errorf("%w: no complete set of libns3 libraries (%s) in %s",
			ErrNoNS3, strings.Join(append(slices.Clone(ns3Modules), opts.ExtraModules...), ", "), strings.Join(libDirs, ", "))
	}
	if opts.HookFile != "" {
		abs, err := filepath.Abs(opts.HookFile)
		if err != nil || !fileExists(abs) {
			return tc, fmt.Errorf("routing hook %s: not a readable file", opts.HookFile)
		}
		tc.Hook = abs
	}
	return tc, nil
}

// ns3DirIncludes lists where an ns-3 tree keeps ns3/core-module.h: a CMake
// build tree (build/include), an installation prefix (include,
// include/ns3.NN).
func ns3DirIncludes(dir string) []string {
	incs := []string{filepath.Join(dir, "build", "include"), filepath.Join(dir, "include")}
	if m, _ := filepath.Glob(filepath.Join(dir, "include", "ns3.*")); len(m) > 0 {
		slices.Sort(m)
		incs = append(incs, m...)
	}
	return incs
}

// ns3Libs finds libns3*core*.so in dir, derives the naming scheme (Debian:
// libns3-core.so; ns-3's own install: libns3.37-core-default.so) and checks
// that every module exists under it.
func ns3Libs(dir string, extra []string) ([]string, bool) {
	matches, _ := filepath.Glob(filepath.Join(dir, "libns3*core*.so"))
	for _, m := range matches {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(m), "lib"), ".so")
		pre, suf, ok := strings.Cut(name, "core")
		if !ok {
			continue
		}
		var libs []string
		for _, mod := range append(slices.Clone(ns3Modules), extra...) {
			l := pre + mod + suf
			if !fileExists(filepath.Join(dir, "lib"+l+".so")) {
				libs = nil
				break
			}
			libs = append(libs, l)
		}
		if libs != nil {
			return libs, true
		}
	}
	return nil, false
}

func multiarch() string {
	switch runtime.GOARCH {
	case "arm64":
		return "aarch64-linux-gnu"
	case "386":
		return "i386-linux-gnu"
	default:
		return "x86_64-linux-gnu"
	}
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// CompileArgs returns the compiler arguments that build src into out.
func (tc Toolchain) CompileArgs(src, out string) []string {
	args := append([]string(nil), baseCXXFlags...)
	if tc.IncludeDir != "/usr/include" {
		args = append(args, "-I"+tc.IncludeDir)
	}
	args = append(args, "-o", out, src)
	if tc.Hook != "" {
		args = append(args, tc.Hook)
	}
	args = append(args, "-L"+tc.LibDir)
	if !isSystemLibDir(tc.LibDir) {
		args = append(args, "-Wl,-rpath,"+tc.LibDir)
	}
	for _, l := range tc.Libs {
		args = append(args, "-l"+l)
	}
	return args
}

func isSystemLibDir(d string) bool {
	switch d {
	case "/usr/lib", "/usr/lib64", "/usr/lib/" + multiarch():
		return true
	}
	return false
}

// Key returns the cache key of the scenario binary: a hash of the source,
// the routing hook's source, the compiler, its version, the flags and the
// resolved ns-3 core library.
func (tc Toolchain) Key(src []byte) string {
	h := sha256.New()
	h.Write(src)
	if tc.Hook != "" {
		b, _ := os.ReadFile(tc.Hook)
		h.Write([]byte("\x00hook\x00"))
		h.Write(b)
	}
	// The hook enters by content (above), not by path: the same hook file
	// in another directory reuses the binary.
	named := tc
	if named.Hook != "" {
		named.Hook = "HOOK"
	}
	fmt.Fprintf(h, "\x00%s\x00%s\x00", tc.CXX, strings.Join(named.CompileArgs("SRC", "OUT"), " "))
	if v, err := exec.Command(tc.CXX, "--version").Output(); err == nil {
		h.Write(v)
	}
	if len(tc.Libs) > 0 {
		if real, err := filepath.EvalSymlinks(filepath.Join(tc.LibDir, "lib"+tc.Libs[0]+".so")); err == nil {
			h.Write([]byte(real))
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Build returns the path of the scenario binary, compiling the embedded
// source only if the cache holds no binary for the current source, compiler
// and flags. Concurrent Builds are safe: each compiles to a temporary file
// and renames it into place.
func Build(ctx context.Context, opts BuildOptions) (string, error) {
	tc, err := FindToolchain(opts)
	if err != nil {
		return "", err
	}
	dir := opts.CacheDir
	if dir == "" {
		if dir, err = DefaultCacheDir(); err != nil {
			return "", err
		}
	}
	files := SourceFiles()
	var all []byte
	for _, n := range scenarioFiles {
		all = append(all, files[n]...)
		all = append(all, 0)
	}
	bin := filepath.Join(dir, "manet-tcp-"+tc.Key(all))
	if st, err := os.Stat(bin); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("build scenario: %w", err)
	}
	work, err := os.MkdirTemp(dir, ".build-")
	if err != nil {
		return "", fmt.Errorf("build scenario: %w", err)
	}
	defer os.RemoveAll(work)
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(work, n), b, 0o644); err != nil {
			return "", fmt.Errorf("build scenario: %w", err)
		}
	}
	src := filepath.Join(work, scenarioFiles[0])
	out := filepath.Join(work, "manet-tcp")
	if opts.Logf != nil {
		opts.Logf("compiling ns-3 scenario into %s (once; ~20-60 s)", bin)
	}
	cmd := exec.CommandContext(ctx, tc.CXX, tc.CompileArgs(src, out)...)
	cmd.Dir = work
	var msg bytes.Buffer
	cmd.Stdout, cmd.Stderr = &msg, &msg
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("build scenario: %w", ctx.Err())
		}
		return "", fmt.Errorf("build scenario: %s %s: %v\n%s", filepath.Base(tc.CXX),
			strings.Join(tc.CompileArgs(src, out), " "), err, tail(msg.String(), 30))
	}
	if err := os.Rename(out, bin); err != nil {
		return "", fmt.Errorf("build scenario: %w", err)
	}
	return bin, nil
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
