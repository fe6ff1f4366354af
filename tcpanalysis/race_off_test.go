//go:build !race

package tcpanalysis

const raceEnabled = false
