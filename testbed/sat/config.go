package sat

// EmuConfig configures RunEmulator: a two-port L2 forwarder between
// interfaces A and B of the current network namespace.
type EmuConfig struct {
	A    string     `json:"a"`      // interface name of port A
	B    string     `json:"b"`      // interface name of port B
	AtoB LinkParams `json:"a_to_b"` // frames received on A, sent on B
	BtoA LinkParams `json:"b_to_a"` // frames received on B, sent on A
	Seed uint64     `json:"seed"`   // PRNG seed for loss and jitter
	// Ready, if non-nil, is called once both ports are open and forwarding.
	Ready func() `json:"-"`
	// Logf, if non-nil, receives progress and the final statistics.
	Logf func(format string, args ...any) `json:"-"`
}

// PEPConfig configures RunPEP, a transparent split-TCP proxy.
type PEPConfig struct {
	// Listen is the address of the IP_TRANSPARENT listener that nftables
	// tproxy redirects intercepted connections to, e.g. "0.0.0.0:5999".
	Listen string `json:"listen"`
	// CC is the congestion control for both halves (TCP_CONGESTION); "" keeps
	// the namespace default.
	CC string `json:"cc"`
	// BufBytes, if > 0, sets SO_RCVBUF and SO_SNDBUF (via the *FORCE
	// variants) on both halves; 0 keeps kernel autotuning.
	BufBytes int `json:"buf_bytes"`
	// Ready, if non-nil, is called once the listener is open.
	Ready func() `json:"-"`
	// Logf, if non-nil, receives one line per connection.
	Logf func(format string, args ...any) `json:"-"`
}
