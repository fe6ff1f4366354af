package flows

import (
	"errors"
	"fmt"
)

// MaxWScale is the largest window-scale shift (RFC 7323 §2.3);
// Options.WScale admits at most this.
const MaxWScale = 14

// ErrWScale is wrapped by Options.Validate's error for a window-scale
// override above MaxWScale.
var ErrWScale = errors.New("window-scale shift out of range")

// Validate checks o before any capture is read: WScale is at most
// MaxWScale (negative: unknown). Errors wrap ErrWScale.
func (o Options) Validate() error {
	if o.WScale > MaxWScale {
		return fmt.Errorf("%w: %d; a shift is at most %d (RFC 7323 §2.3)", ErrWScale, o.WScale, MaxWScale)
	}
	return nil
}
