//go:build race

package tcpanalysis

// raceEnabled: the race detector's shadow memory and instrumented
// allocations change the heap the memory tests measure.
const raceEnabled = true
