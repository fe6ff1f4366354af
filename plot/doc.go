// Package plot draws tcpviz figures with gonum.org/v1/plot: the Stevens
// time-sequence graph in tcptrace's visual language (TimeSeq), series of
// the other analyses (XY, Grid, Stack) and the study figures of a campaign
// (GroupMeans, PairedDiffs). It is the only package that imports
// gonum/plot.
//
// A Figure is ready for a paper: its Style sets the size, font size and
// PNG resolution; each axis names the unit chosen from the data (Unit);
// ticks are nice and include 0; the legend sits above the data and lists
// only what was drawn, with the marks drawn. It computes nothing; every
// value comes from tcpanalysis or the caller.
package plot
