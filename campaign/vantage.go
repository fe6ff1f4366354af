package campaign

import (
	"errors"
	"fmt"
)

// Vantage says where a capture was taken relative to a flow
// (docs/metrics.md#vantage). Its text form, the column vantage of the
// per-flow table (docs/schema.md#goodput), is String's; the zero value,
// NoVantage, is the empty string (a row read from a CSV without the
// column).
type Vantage uint8

// Vantage points, decided per flow from the capture (docs/metrics.md#vantage).
const (
	// NoVantage: not known (the zero value; text "").
	NoVantage Vantage = iota
	// AtReceiver: taken on the receiver's own node ("receiver").
	AtReceiver
	// AtSender: taken on the sender's own node ("sender").
	AtSender
	// Elsewhere: neither endpoint's capture by the TCP-level evidence
	// (wired: TTLs; 802.11 without the capturing node's identity)
	// ("other").
	Elsewhere
	// Relay: an 802.11 capture of a node that owns neither endpoint's
	// address and took part in the connection: its radio transmitted
	// frames of it, or received frames of it addressed to its own MAC
	// ("relay").
	Relay
	// Overheard: an 802.11 capture of a node that transmitted nothing of
	// the connection and owns neither endpoint's address: it only heard
	// frames addressed to others ("overheard").
	Overheard
	// Nowhere: the flow is declared (ground truth, Options.Starts) but no
	// capture of its run holds it; its row has 0 goodput bytes ("none").
	Nowhere
	// AtProxy: a split-TCP PEP acknowledged the data in this capture
	// (package pep's one-capture evidence; wired captures only): its bytes
	// were accepted by the PEP, not delivered (docs/metrics.md#pep)
	// ("pep").
	AtProxy
	// AtProxyPossible: a split-TCP PEP may have acknowledged the data in
	// this capture and nothing in it tells (package pep, Verdict.Possible:
	// the acknowledger is on the sender's link; wired captures only): its
	// bytes are delivered only if the acknowledger is the receiver
	// (docs/metrics.md#pep) ("pep?").
	AtProxyPossible
)

var vantageNames = [...]string{NoVantage: "", AtReceiver: "receiver", AtSender: "sender", Elsewhere: "other",
	Relay: "relay", Overheard: "overheard", Nowhere: "none", AtProxy: "pep", AtProxyPossible: "pep?"}

// ErrVantage is the error of ParseVantage for a name it does not know.
var ErrVantage = errors.New("unknown vantage")

// String is v's name in the per-flow table: receiver, sender, other,
// relay, overheard, none, pep, pep?, or "" for NoVantage.
func (v Vantage) String() string {
	if int(v) < len(vantageNames) {
		return vantageNames[v]
	}
	return fmt.Sprintf("Vantage(%d)", uint8(v))
}

// ParseVantage is the inverse of String; a name it does not know is an
// error wrapping ErrVantage.
func ParseVantage(s string) (Vantage, error) {
	for v, n := range vantageNames {
		if n == s {
			return Vantage(v), nil
		}
	}
	return NoVantage, fmt.Errorf("%w %q: want receiver, sender, other, relay, overheard, none, pep or pep?", ErrVantage, s)
}

// MarshalText writes String (encoding.TextMarshaler: JSON, CSV writers).
func (v Vantage) MarshalText() ([]byte, error) {
	if int(v) >= len(vantageNames) {
		return nil, fmt.Errorf("%w: %d", ErrVantage, uint8(v))
	}
	return []byte(v.String()), nil
}

// UnmarshalText reads a name ParseVantage accepts.
func (v *Vantage) UnmarshalText(b []byte) error {
	x, err := ParseVantage(string(b))
	if err != nil {
		return err
	}
	*v = x
	return nil
}

// Proxied reports that a split-TCP PEP acknowledged the data in the row's
// capture (AtProxy) or may have (AtProxyPossible): its bytes are not known
// to have been delivered end to end, so the tables leave the row out.
func (v Vantage) Proxied() bool { return v == AtProxy || v == AtProxyPossible }
