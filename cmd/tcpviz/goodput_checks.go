package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tcpviz/tcpviz/campaign"
	"github.com/tcpviz/tcpviz/study"
)

// goodputFlagNames are the flags of goodput and stats that set each
// library option, for the library's errors and warnings.
var goodputFlagNames = [...]string{campaign.OptLabels: "--labels", campaign.OptManifest: "--manifest", campaign.OptPort: "--port",
	campaign.OptDir: "--dir", campaign.OptMinBytes: "--min-bytes", campaign.OptEnd: "--end", campaign.OptJobs: "--jobs",
	campaign.OptShard: "--shard", campaign.OptStarts: "--starts", campaign.OptStartsRename: "--starts-rename",
	campaign.OptInterval: "--interval", campaign.OptNoGroundTruth: "--no-groundtruth", campaign.OptGroup: "--group",
	campaign.OptPair: "--pair", campaign.OptPerRun: "--per-run", campaign.OptLevel: "--level", campaign.OptOrder: "--order",
	campaign.OptPairs: "--pairs", campaign.OptPlot: "--plot", campaign.OptTeX: "--tables-tex", campaign.OptCSV: "--csv",
	campaign.OptPathRTT: "--path-rtt"}

// flagName names a library option by its flag.
func flagName(o campaign.Option) string {
	if int(o) < len(goodputFlagNames) && goodputFlagNames[o] != "" {
		return goodputFlagNames[o]
	}
	return o.String()
}

// printWarnings prints the library's warnings, one a line, naming options
// by their flags.
func printWarnings(w io.Writer, ws []campaign.Warning) {
	for _, x := range ws {
		fmt.Fprintln(w, x.Message(flagName))
	}
}

// flagError is a library error with its message naming flags.
type flagError struct {
	msg string
	err error
}

func (e *flagError) Error() string { return e.msg }
func (e *flagError) Unwrap() error { return e.err }

// goodputErr names the options of an error of study.Goodput or
// study.Stats by their flags; an input error (study.ErrInput) exits 2, an
// invalid option 1.
func goodputErr(err error) error {
	var oe *campaign.OptionError
	if errors.As(err, &oe) {
		err = &flagError{oe.Message(flagName), err}
	}
	if errors.Is(err, study.ErrInput) {
		return &exitError{code: 2, err: err}
	}
	return err
}

// statsAlias says whether 'goodput ARGS' is the old sub-verb 'goodput
// stats CSV...' (now 'tcpviz stats'), with the note to print: the first
// argument is "stats" and no file or directory of that name exists — a
// path that exists is a path (trial13 B8, README "tcpviz stats").
func statsAlias(args []string) (alias bool, note string) {
	if len(args) == 0 || args[0] != "stats" {
		return false, ""
	}
	if _, err := os.Lstat("stats"); err == nil {
		return false, "note: 'stats' is read as a path because one exists here; to merge per-flow CSVs use 'tcpviz stats CSV...'"
	}
	return true, "note: 'tcpviz goodput stats' is now 'tcpviz stats'"
}

// checkParquetName refuses a --parquet file whose name says another format
// (x.csv would hold Parquet; trial14 B9): .parquet, .pq or no extension.
func (f *goodputFlags) checkParquetName() error {
	if f.parquetOut == "" {
		return nil
	}
	switch ext := strings.ToLower(filepath.Ext(f.parquetOut)); ext {
	case "", ".parquet", ".pq":
		return nil
	default:
		return fmt.Errorf("--parquet %s: the file would hold Parquet under a %s name; name it .parquet (-o FILE.csv or FILE.json writes CSV or JSON)", f.parquetOut, ext)
	}
}
