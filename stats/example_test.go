package stats_test

import (
	"fmt"
	"os"

	"github.com/tcpviz/tcpviz/stats"
)

func ExampleMeanCI() {
	iv, err := stats.MeanCI([]float64{5, 7, 8, 9, 11}, 0.95)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%v sd=%.4f n=%d\n", iv, iv.SD, iv.N)
	// Output: 8.0 [5.2, 10.8] sd=2.2361 n=5
}

func ExampleWilcoxonSignedRank() {
	x := []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}
	y := []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}
	d := make([]float64, len(x))
	for i := range x {
		d[i] = x[i] - y[i]
	}
	r, err := stats.WilcoxonSignedRank(d)
	if err != nil {
		panic(err)
	}
	fmt.Println(r)
	// Output: V = 40, p = 0.039 (exact, n = 9, 0 zeros)
}

func ExamplePaired() {
	// Goodput (kbps) per seed for two protocols; seed 4 ran only under aodv.
	// Differences 340, 240, 412: mean 330.7, sd 86.4, t_{0.975,2} = 4.3027.
	anthocnet := []stats.Pair[int]{{1, 1350}, {2, 1290}, {3, 1402}}
	aodv := []stats.Pair[int]{{1, 1010}, {2, 1050}, {3, 990}, {4, 1000}}
	r, err := stats.Paired(anthocnet, aodv, 0.95)
	if err != nil {
		panic(err)
	}
	fmt.Println(r, "unmatched:", r.OnlyA, r.OnlyB)
	if err := stats.WritePairsMarkdown(os.Stdout, "", "kbps", []stats.PairRow{stats.NewPairRow("anthocnet vs aodv", r)}); err != nil {
		panic(err)
	}
	// Output:
	// +330.7 [+116.1, +545.2], p = 0.25, 3/3 positive unmatched: [] [4]
	// | comparison | n | mean diff [CI] (kbps) | Wilcoxon p | positive |
	// | :--- | ---: | ---: | ---: | ---: |
	// | anthocnet vs aodv | 3 | +330.7 [+116.1, +545.2] | 0.25 | 3/3 |
}
