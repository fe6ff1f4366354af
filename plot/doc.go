// Package plot draws tcpviz figures with gonum.org/v1/plot: the Stevens
// time-sequence graph in tcptrace's visual language, and the series of the
// other analyses. It is the only package that imports gonum/plot.
//
// It computes nothing; every value comes from tcpanalysis.
package plot
