// Package stats computes the summary statistics that tcpviz's run comparisons
// publish: a t-based confidence interval for a mean (MeanCI), the exact
// Wilcoxon signed-rank test for paired differences (WilcoxonSignedRank), the
// per-key pairing of two samples (Paired), and Markdown/CSV renderings of the
// per-group and per-pair tables. It reads no captures and knows nothing of TCP;
// it does not correct for multiple comparisons.
package stats
