package plot

import (
	"errors"
	"math"
	"testing"
)

// TestStyleError: Check names the field out of range, at the bounds' both
// sides.
func TestStyleError(t *testing.T) {
	for _, tt := range []struct {
		st    Style
		field StyleField
		ok    bool
	}{
		{DefaultStyle.WithFontSize(MinFontSize), 0, true},
		{DefaultStyle.WithFontSize(MaxFontSize + 0.5), FieldFontSize, false},
		{DefaultStyle.WithFontSize(math.NaN()), FieldFontSize, false},
		{Style{DPI: MinDPI - 1}, FieldDPI, false},
		{Style{DPI: MaxDPI}, 0, true},
		{Style{W: 1, H: 1}, FieldSize, false},
	} {
		err := tt.st.Check()
		var se *StyleError
		if tt.ok != (err == nil) || (!tt.ok && (!errors.As(err, &se) || se.Field != tt.field)) {
			t.Errorf("%+v: %v, want field %d (ok %v)", tt.st, err, tt.field, tt.ok)
		}
	}
}
