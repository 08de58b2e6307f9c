package query

import (
	"encoding/json"
	"reflect"
)

// CompareArg is the compare argument as sent: a mode ("previous_period",
// "previous_year", or a spelling of them) or an explicit window {start, end}.
// Exactly one of Mode and Window is set. Its JSON is the same string or object,
// so a normalized query's Args write it back as it can be sent again.
type CompareArg struct {
	// Mode is the string as sent; normalization forgives its spelling.
	Mode string
	// Window is the explicit comparison window, with date_range's key
	// forgiveness ({since, until}, {from, to}…).
	Window *DateRange
}

// compareFix is how to write compare, for every error about its form.
const compareFix = `give compare as "previous_period", "previous_year" or {"start":"YYYY-MM-DD","end":"YYYY-MM-DD"}`

// UnmarshalJSON reads a string as the mode and an object as the window; any
// other JSON type is an error naming the valid forms.
func (c *CompareArg) UnmarshalJSON(b []byte) error {
	switch jsonKindOf(b) {
	case "string":
		*c = CompareArg{}
		return json.Unmarshal(b, &c.Mode)
	case "object":
		var d DateRange
		if err := unmarshalRange(b, "compare", &d); err != nil {
			return err
		}
		*c = CompareArg{Window: &d}
		return nil
	}
	return &json.UnmarshalTypeError{Value: jsonKindOf(b), Type: reflect.TypeOf(CompareArg{})}
}

// MarshalJSON writes the window as {start, end}, or else the mode as a string.
func (c CompareArg) MarshalJSON() ([]byte, error) {
	if c.Window != nil {
		return json.Marshal(c.Window)
	}
	return json.Marshal(c.Mode)
}
