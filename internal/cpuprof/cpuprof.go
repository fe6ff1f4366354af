// Package cpuprof writes a CPU profile of a whole tcpviz run when the
// environment variable TCPVIZ_CPUPROFILE names a file, an allocation
// profile (pprof "allocs", every allocation sampled at the runtime's
// default rate; without it no allocation is sampled) when TCPVIZ_MEMPROFILE does, and an execution trace when
// TCPVIZ_TRACE does (docs/performance.md): hidden switches for measuring,
// not user options.
package cpuprof

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// Start begins the CPU profile named by $TCPVIZ_CPUPROFILE, if set, and
// returns the function that ends it and writes the allocation profile to
// $TCPVIZ_MEMPROFILE, if set. Unset variables make it a no-op; a file that
// cannot be written is reported on stderr and the run goes on.
func Start() (stop func()) {
	cpu := startCPU()
	tr := startTrace()
	mem := os.Getenv("TCPVIZ_MEMPROFILE")
	if mem == "" {
		// No allocation profile: the runtime's sampling of one
		// allocation in 512 KiB (a stack walk, a record) is work and
		// fresh memory for nothing.
		runtime.MemProfileRate = 0
	}
	return func() {
		cpu()
		tr()
		if mem == "" {
			return
		}
		f, err := os.Create(mem)
		if err == nil {
			err = pprof.Lookup("allocs").WriteTo(f, 0)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "tcpviz: TCPVIZ_MEMPROFILE:", err)
		}
	}
}

func startCPU() (stop func()) {
	path := os.Getenv("TCPVIZ_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tcpviz: TCPVIZ_CPUPROFILE:", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "tcpviz: TCPVIZ_CPUPROFILE:", err)
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// startTrace starts the execution trace named by $TCPVIZ_TRACE (go tool
// trace), if set.
func startTrace() (stop func()) {
	path := os.Getenv("TCPVIZ_TRACE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = trace.Start(f)
		if err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tcpviz: TCPVIZ_TRACE:", err)
		return func() {}
	}
	return func() {
		trace.Stop()
		f.Close()
	}
}
