package campaign

import (
	"errors"
	"fmt"
)

// Option names a setting of a goodput campaign (Options, study.Options)
// in the errors and warnings of this package and of package study, so that
// a front end names it its own way: Error and String use the names below,
// the command line passes its flag names to Text.Render.
type Option uint8

// The options errors and warnings can name.
const (
	OptLabels Option = iota + 1
	OptManifest
	OptPort
	OptDir
	OptMinBytes
	OptEnd
	OptJobs
	OptShard
	OptStarts
	OptStartsRename
	OptInterval
	OptNoGroundTruth
	OptGroup
	OptPair
	OptPerRun
	OptLevel
	OptOrder
	OptPairs
	OptPlot
	OptTeX
	// OptCSV is a front end's output of the per-flow rows as CSV (named
	// in messages only).
	OptCSV
	// OptPathRTT is Options.PathRTT.
	OptPathRTT
)

var optionNames = [...]string{OptLabels: "Labels", OptManifest: "Manifest", OptPort: "Port", OptDir: "Dir", OptMinBytes: "MinBytes",
	OptEnd: "End", OptJobs: "Jobs", OptShard: "Shard", OptStarts: "Starts", OptStartsRename: "StartsRename", OptInterval: "Interval",
	OptNoGroundTruth: "NoGroundTruth", OptGroup: "Group", OptPair: "Pair", OptPerRun: "PerRun", OptLevel: "Level", OptOrder: "Order",
	OptPairs: "Pairs", OptPlot: "Plot", OptTeX: "TeX", OptCSV: "CSV", OptPathRTT: "PathRTT"}

// String is the option's name in the library: its field name.
func (o Option) String() string {
	if int(o) < len(optionNames) && optionNames[o] != "" {
		return optionNames[o]
	}
	return fmt.Sprintf("Option(%d)", uint8(o))
}

// Text is a message that may name options: Format with Args as for
// fmt.Sprintf, where each Option argument is written as the reader knows
// it (Render).
type Text struct {
	Format string
	Args   []any
}

// Textf is a Text.
func Textf(format string, args ...any) Text { return Text{format, args} }

// Render writes the message, naming every Option argument by name(o).
func (t Text) Render(name func(Option) string) string {
	args := make([]any, len(t.Args))
	for i, a := range t.Args {
		if o, ok := a.(Option); ok {
			a = name(o)
		}
		args[i] = a
	}
	return fmt.Sprintf(t.Format, args...)
}

// String renders t with the library's option names.
func (t Text) String() string { return t.Render(Option.String) }

// Sentinel errors of invalid options (OptionError wraps one).
var (
	// ErrInvalidOption: an option's value is out of its range or
	// malformed.
	ErrInvalidOption = errors.New("invalid option")
	// ErrOptionsConflict: two options that exclude each other are both
	// set, or one is set without the one it needs.
	ErrOptionsConflict = errors.New("options conflict")
	// ErrUnknownLabel: the group or pairing label, or a group named by
	// the order or the comparisons, is not one the runs have.
	ErrUnknownLabel = errors.New("unknown label")
)

// OptionError is an invalid option, found before any capture is read.
// Option is the one at fault; Err is ErrInvalidOption, ErrOptionsConflict
// or ErrUnknownLabel; Cause, if not nil, the parser's error.
type OptionError struct {
	Option Option
	Err    error
	Cause  error
	Text   Text
}

// Error is the message with the library's option names.
func (e *OptionError) Error() string { return e.Text.String() }

// Unwrap returns the sentinel and the cause.
func (e *OptionError) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Err, e.Cause}
	}
	return []error{e.Err}
}

// Message is the message naming options by name(o) (a command line: its
// flags).
func (e *OptionError) Message(name func(Option) string) string { return e.Text.Render(name) }

// optErr is an OptionError about o.
func optErr(o Option, sentinel error, format string, args ...any) error {
	return &OptionError{Option: o, Err: sentinel, Text: Textf(format, args...)}
}

// InvalidOption is an OptionError wrapping ErrInvalidOption, its message
// format and args as Textf's.
func InvalidOption(o Option, format string, args ...any) error {
	return optErr(o, ErrInvalidOption, format, args...)
}

// ConflictingOptions is an OptionError wrapping ErrOptionsConflict.
func ConflictingOptions(o Option, format string, args ...any) error {
	return optErr(o, ErrOptionsConflict, format, args...)
}

// UnknownLabel is an OptionError wrapping ErrUnknownLabel.
func UnknownLabel(o Option, format string, args ...any) error {
	return optErr(o, ErrUnknownLabel, format, args...)
}

// Severity is how much a Warning matters, and how a front end prefixes it.
type Severity uint8

// Severities, from the least.
const (
	// Info is a summary line, printed as it is.
	Info Severity = iota
	// Note is a consistent finding worth knowing ("note: ").
	Note
	// Caution may make a number wrong ("warning: ").
	Caution
	// Loud is a finding that makes groups or numbers misleading unless
	// acted on ("WARNING: ").
	Loud
	// Failure is a capture that could not be used ("error: "); the batch
	// went on.
	Failure
)

// Prefix is what a line of the severity starts with.
func (s Severity) Prefix() string {
	p := [...]string{Info: "", Note: "note: ", Caution: "warning: ", Loud: "WARNING: ", Failure: "error: "}
	if int(s) < len(p) {
		return p[s]
	}
	return "warning: "
}

// WarningKind says what a Warning is about.
type WarningKind uint8

// Warning kinds of a goodput campaign (package study collects them).
const (
	WarnListing       WarningKind = iota // a note of listing the paths (List)
	WarnCaptureFailed                    // a capture that could not be analysed
	WarnRejected                         // captures the label pattern or manifest rejected
	WarnCaptureCut                       // a reader warning about a capture: its flows are used up to there
	WarnInterval                         // an interval reaching outside its run's captures
	WarnVantage                          // flows not read at their receiver (docs/metrics.md#vantage)
	WarnNoReceiver                       // flows that reached no receiver
	WarnLabelsFit                        // the label pattern probably does not fit the file names
	WarnDropped                          // flows the small-flow filter left out
	WarnSummary                          // the campaign's summary line
	WarnGroundTruth                      // a run's ground truth could not be read
	WarnPEP                              // flows a split-TCP PEP acknowledged (docs/metrics.md#pep)
	WarnDeclared                         // declared flows found in no capture
	WarnLate                             // a flow that started late (docs/metrics.md#interval)
	WarnLateSummary                      // the late flows' summary with the fix
	WarnPEPTables                        // rows left out of the tables (vantage pep)
	WarnRepeated                         // rows given twice to a merge, counted once
	WarnSameCapture                      // paths left out: they hold a capture already listed (Listing.Same)
	WarnSameLabels                       // captures or runs that no label tells apart
	WarnNoTCP                            // a batch of no flow: its captures hold no TCP (or none on the port)
	WarnShards                           // shards of a campaign missing or given twice to a merge
)

// Warning is one line a goodput campaign reports besides its rows: Text
// may name options (Text.Render).
type Warning struct {
	Severity Severity
	Kind     WarningKind
	Text     Text
}

// Message is the line with its prefix, naming options by name(o).
func (w Warning) Message(name func(Option) string) string {
	return w.Severity.Prefix() + w.Text.Render(name)
}

// String is Message with the library's option names.
func (w Warning) String() string { return w.Message(Option.String) }

// Warn is a Warning.
func Warn(s Severity, k WarningKind, format string, args ...any) Warning {
	return Warning{s, k, Textf(format, args...)}
}
