package domain_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/domain"
)

var identifierRE = regexp.MustCompile(domain.IdentifierPattern)

func TestIdentifierRule(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"LD-175396", "L", "x.", ".x", "...", "L..1", "A B", "Zürich-7", "漢", "\u3000", strings.Repeat("é", domain.MaxLoadNumber)} {
		if why := domain.CheckIdentifier(s); why != "" || !identifierRE.MatchString(s) {
			t.Errorf("%q: refused (%q) or not matched by the pattern (%v)", s, why, identifierRE.MatchString(s))
		}
	}
	for s, want := range map[string]string{
		"../../LD-175396": `"/"`, `LD\1`: `"\"`, "LD/1": `"/"`, ".": `".."`, "..": `".."`,
		"LD\t1": "control", "LD\n": "control", "a\u0085b": "control", " LD-1": "a space", "LD-1 ": "a space",
		"\u00A0LD": "a space", "LD\u00A0": "a space", "": "1 to 64", "   ": "a space",
		strings.Repeat("a", domain.MaxLoadNumber+1): "1 to 64",
	} {
		if why := domain.CheckIdentifier(s); !strings.Contains(why, want) {
			t.Errorf("CheckIdentifier(%q) = %q, want a message with %s", s, why, want)
		}
		if len(s) <= domain.MaxLoadNumber && identifierRE.MatchString(s) {
			t.Errorf("the pattern matches %q, which the rule refuses", s)
		}
	}
	var v domain.Validation
	v.IdentifierField("LoadNumber", "LoadNumber", "../x")
	if e := v.Err().(*domain.Error); e.Code != domain.CodeInvalid || !strings.HasPrefix(e.Fields["LoadNumber"][0], "LoadNumber must not") {
		t.Fatalf("IdentifierField: %#v", e)
	}
}
