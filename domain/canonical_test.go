package domain

import (
	"regexp"
	"testing"
)

// The document states the text rule as TextPattern and the date-time rule
// as DateTimePattern: each pattern and its Go rule agree.
func TestPatternsAgreeWithTheRules(t *testing.T) {
	t.Parallel()
	text := regexp.MustCompile(TextPattern)
	for r := rune(0); r < 0x3000; r++ {
		s := "a" + string(r) + "b"
		if text.MatchString(s) != (CheckText(s) == nil) {
			t.Errorf("U+%04X: pattern %v, CheckText %v", r, text.MatchString(s), CheckText(s))
		}
	}
	for s, ok := range map[string]bool{
		"2025-01-31T00:00:00Z": true, "2025-01-31t00:00:00z": true, "2025-01-31T00:00:00.123456789+05:30": true,
		"2025-01-31T00:00:00.1234567891Z": false, "2025-01-31T00:00:00": false, "2025-01-31": false, "2025-01-31 00:00:00Z": false,
	} {
		if _, err := ParseDateTime(s); (err == nil) != ok {
			t.Errorf("ParseDateTime(%q): %v, want ok %v", s, err, ok)
		}
		if len(s) > MaxDateTimeLength && ok {
			t.Errorf("%q is longer than MaxDateTimeLength", s)
		}
	}
}

func TestCanonicalForms(t *testing.T) {
	t.Parallel()
	u := "3fa85f64-5717-4562-b3fc-2c963f66afa6"
	for s, ok := range map[string]bool{u: true, "3FA85F64-5717-4562-B3FC-2C963F66AFA6": true, "{" + u + "}": false,
		"urn:uuid:" + u: false, "3fa85f6457174562b3fc2c963f66afa6": false, " " + u: false} {
		if _, err := ParseUUID(s); (err == nil) != ok {
			t.Errorf("ParseUUID(%q): %v", s, err)
		}
	}
	for s, ok := range map[string]bool{"10": true, "-3": true, "+10": false, "10.0": false, "1e1": false, " 1": false, "": false, "-": false} {
		if _, err := ParseInt(s, -100, 100); (err == nil) != ok {
			t.Errorf("ParseInt(%q): %v", s, err)
		}
	}
	for s, ok := range map[string]bool{"10": true, "10.0": true, "1e1": true, "10.5": false, "101": false} {
		if _, err := IntegralNumber(s, 0, 100); (err == nil) != ok {
			t.Errorf("IntegralNumber(%q): %v", s, err)
		}
	}
	for s, ok := range map[string]bool{"true": true, "false": true, "TRUE": false, "1": false, "": false} {
		if _, err := ParseBool(s); (err == nil) != ok {
			t.Errorf("ParseBool(%q): %v", s, err)
		}
	}
	if _, err := ParseEnum("company", DriverTypes); err == nil {
		t.Error("ParseEnum matched another case")
	}
	if Length("ééé") != 3 {
		t.Error("Length counts bytes")
	}
}
