package query

// Unit is the unit of a metric's values or of a summary row.
type Unit string

// Units used by metrics and summary tables.
const (
	Seconds      Unit = "s"
	Milliseconds Unit = "ms"
	Bytes        Unit = "bytes"
	Kbps         Unit = "kbit/s" // kilobits (1000 bits) per second
	Count        Unit = "count"
)
