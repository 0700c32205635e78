package rest_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
)

// Candidate values derived from a schema's keywords: the boundaries on
// both sides. Whether each is valid is the document's to say
// (schemaValid), not the candidate's.

type value struct {
	v    any
	note string
}

// valueCandidates are JSON values for a schema; current is the example's.
func valueCandidates(rng *rand.Rand, s *openapi3.Schema, current any) []value {
	var out []value
	switch {
	case s.Type.Includes(openapi3.TypeInteger):
		if s.Min != nil {
			out = append(out, value{*s.Min, "minimum"}, value{*s.Min - 1, "below minimum"})
		}
		if s.Max != nil {
			m := int64(*s.Max)
			out = append(out, value{*s.Max, "maximum"}, value{*s.Max + 1, "above maximum"},
				value{json.Number(strconv.FormatInt(m, 10) + ".0"), "maximum written with .0"},
				value{json.Number(strconv.FormatInt(m, 10) + ".5"), "a fraction"})
		}
		out = append(out, value{json.Number("1e1"), "10 written 1e1"}, value{"10", "a string of digits"}, value{true, "a boolean"})
	case s.Type.Includes(openapi3.TypeBoolean):
		out = append(out, value{true, "true"}, value{false, "false"}, value{"true", "a string"}, value{1, "a number"})
	case s.Type.Includes(openapi3.TypeArray):
		item := s.Items.Value
		items := valueCandidates(rng, item, nil)
		out = append(out, value{[]any{}, "empty"})
		for _, c := range items {
			out = append(out, value{[]any{c.v}, "[" + c.note + "]"})
		}
		if len(item.Enum) > 0 {
			out = append(out, value{slices.Clone(item.Enum), "every enum value"},
				value{[]any{item.Enum[0], item.Enum[0]}, "a repeated item"})
		}
		if s.MaxItems != nil && len(items) > 0 {
			over := make([]any, *s.MaxItems+1)
			for i := range over {
				over[i] = items[0].v
			}
			out = append(out, value{over, "one item past maxItems"})
		}
		out = append(out, value{"x", "a string"})
	case s.Type.Includes(openapi3.TypeString):
		cur, _ := current.(string)
		for _, c := range stringCandidates(rng, s, cur) {
			out = append(out, value{c.v, c.note})
		}
		out = append(out, value{12, "a number"})
	}
	return out
}

// stringCandidates are the boundary strings of s's format, enum, pattern
// and lengths.
func stringCandidates(rng *rand.Rand, s *openapi3.Schema, current string) []value {
	var out []value
	add := func(v, note string) { out = append(out, value{v, note}) }
	cases := func(v string) {
		for _, w := range []string{strings.ToLower(v), strings.ToUpper(v), strings.ToUpper(v[:1]) + strings.ToLower(v[1:])} {
			if w != v {
				add(w, "another case of "+v)
			}
		}
	}
	switch {
	case len(s.Enum) > 0:
		for _, e := range s.Enum {
			add(fmt.Sprint(e), "enum value")
			cases(fmt.Sprint(e))
		}
		add("unknown", "not in the enum")
	case s.Format == "uuid":
		u := fmt.Sprintf("%08x-%04x-4%03x-a%03x-%012x", rng.Uint32(), rng.Uint32()&0xffff, rng.Uint32()&0xfff, rng.Uint32()&0xfff, rng.Uint64()&0xffffffffffff)
		if formatChecks["uuid"](current) {
			u = strings.ToLower(current) // a reference to a resource that exists
		}
		add(u, "a uuid")
		add(strings.ToUpper(u), "a uuid in upper case")
		add("{"+u+"}", "a uuid in braces")
		add("urn:uuid:"+u, "a urn:uuid:")
		add(strings.ReplaceAll(u, "-", ""), "32 hex digits")
		add(u[:35], "35 characters")
		add(" "+u, "a leading space")
	case s.Format == "date-time":
		t, err := time.Parse(time.RFC3339Nano, current)
		if err != nil {
			t = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		}
		z := t.UTC().Format("2006-01-02T15:04:05Z")
		add(z, "the instant in Z")
		add(strings.ToLower(z), "t and z in lower case")
		add(t.UTC().Format("2006-01-02T15:04:05.000000000-07:00"), "nanoseconds and an offset (35 characters)")
		add(strings.TrimSuffix(z, "Z")+".0000000000Z", "ten fractional digits")
		add(t.In(time.FixedZone("", 5*3600)).Format(time.RFC3339), "the instant at +05:00")
		add(strings.TrimSuffix(z, "Z"), "no offset")
		if past, future, ok := within(s); ok {
			add(time.Now().Add(-past-24*time.Hour).UTC().Format(time.RFC3339), "a day before x-within")
			add(time.Now().Add(future+24*time.Hour).UTC().Format(time.RFC3339), "a day after x-within")
		}
		add(z[:10], "a date only")
		add(strings.Replace(z, "T", " ", 1), "a space for T")
	case s.Format == "date":
		d := current
		if d == "" {
			d = "2025-01-01"
		}
		add(d, "the date")
		add(strings.ReplaceAll(d, "-", ""), "no hyphens")
		add(d+"T00:00:00Z", "a date-time")
		add(strings.Replace(d, "-0", "-", 2), "no leading zeros")
	case s.Format == "uri":
		base := "https://hooks.example.com/"
		n := int(*s.MaxLength)
		add(base+strings.Repeat("a", n-len(base)), "https at maxLength")
		add(base+strings.Repeat("a", n-len(base)+1), "one past maxLength")
		add(base+"é", "a character outside RFC 3986")
		add("hooks.example.com/x", "no scheme")
	default:
		if current != "" {
			cases(current)
		}
		for _, v := range []string{"company", "COMPANY", "Owner_Operator", "COMPANYX"} {
			if s.Pattern != "" && strings.Contains(s.Pattern, "[Cc]") {
				add(v, "a driver type spelling")
			}
		}
		if s.MaxLength != nil {
			n := int(*s.MaxLength)
			add(strings.Repeat("é", n), "maxLength in 2-byte characters")
			add(strings.Repeat("𝄞", n), "maxLength in 4-byte characters")
			add(randomText(rng, n), "maxLength in mixed characters")
			add(strings.Repeat("a", n+1), "one past maxLength")
			add(strings.Repeat("é", n+1), "one past maxLength in 2-byte characters")
		}
		if s.MinLength > 0 {
			add("", "empty")
		}
		add(" ", "blank")
		add("a\x00b", "a NUL")
		add("a\u0085b", "a C1 control character")
		add("a\tb", "a tab")
	}
	return out
}

func randomText(rng *rand.Rand, n int) string {
	alphabet := []rune("aZ9-é€𝄞漢ß")
	var b strings.Builder
	for range n {
		b.WriteRune(alphabet[rng.IntN(len(alphabet))])
	}
	return b.String()
}

// textCand is a query or path value: nil values means absent.
type textCand struct {
	values []string
	note   string
	valid  *bool
}

// textCandidates are the boundary spellings of a parameter.
func textCandidates(rng *rand.Rand, s *openapi3.Schema, name string, override any) []textCand {
	out := []textCand{{nil, "absent", nil}}
	add := func(note string, vs ...string) { out = append(out, textCand{vs, note, nil}) }
	if override != nil {
		add("the override", fmt.Sprint(override))
	}
	switch {
	case s.Type.Includes(openapi3.TypeArray):
		for _, c := range valueCandidates(rng, s, nil) {
			list, ok := c.v.([]any)
			if !ok || len(list) == 0 {
				continue
			}
			vs := make([]string, len(list))
			for i, x := range list {
				vs[i] = fmt.Sprint(x)
			}
			add(c.note, vs...)
		}
		add("empty", "")
	case s.Type.Includes(openapi3.TypeInteger):
		if s.Min != nil {
			add("minimum", fmt.Sprint(int64(*s.Min)))
			add("below minimum", fmt.Sprint(int64(*s.Min)-1))
		}
		if s.Max != nil {
			m := fmt.Sprint(int64(*s.Max))
			add("maximum", m)
			add("above maximum", fmt.Sprint(int64(*s.Max)+1))
			add("a plus sign", "+"+m)
			add("written with .0", m+".0")
			add("a leading space", " "+m)
		}
		add("an exponent", "1e1")
		add("empty", "")
		add("letters", "ten")
	case s.Type.Includes(openapi3.TypeBoolean):
		for _, v := range []string{"true", "false", "TRUE", "True", "1", "0", "yes", ""} {
			add(v, v)
		}
	default:
		for _, c := range stringCandidates(rng, s, fmt.Sprint(orEmpty(override))) {
			add(c.note, c.v.(string))
		}
		if s.MinLength == 0 {
			add("empty", "")
		}
	}
	return out
}

func orEmpty(v any) any {
	if v == nil {
		return ""
	}
	return v
}

type bodyCand struct {
	body  any
	field string
	note  string
}

// bodyCandidates changes one member of body at a time, at any depth.
func bodyCandidates(rng *rand.Rand, s *openapi3.Schema, body map[string]any, prefix string) []bodyCand {
	var out []bodyCand
	names := slices.Sorted(maps.Keys(s.Properties))
	for _, name := range names {
		ps := s.Properties[name].Value
		field := prefix + name
		with := func(v any) map[string]any {
			b := maps.Clone(body)
			b[name] = v
			return b
		}
		without := maps.Clone(body)
		delete(without, name)
		out = append(out, bodyCand{without, field, "absent"}, bodyCand{with(nil), field, "null"})
		if ps.Type.Includes(openapi3.TypeObject) && len(ps.Properties) > 0 {
			inner, _ := body[name].(map[string]any)
			if inner == nil {
				inner = map[string]any{}
			}
			out = append(out, bodyCand{with(inner), field, "the object"}, bodyCand{with("x"), field, "a string"})
			for _, c := range bodyCandidates(rng, ps, inner, field+".") {
				out = append(out, bodyCand{with(c.body), c.field, c.note})
			}
			continue
		}
		for _, c := range valueCandidates(rng, ps, body[name]) {
			out = append(out, bodyCand{with(c.v), field, c.note})
		}
		// x-not-before: a day before the sibling it names, and equal to it.
		if other, _ := ps.Extensions["x-not-before"].(string); other != "" {
			if t, ok := instant(body[other]); ok {
				out = append(out, bodyCand{with(t.AddDate(0, 0, -1).Format(time.RFC3339)), field, "a day before " + other},
					bodyCand{with(body[other]), field, "equal to " + other})
			}
		}
	}
	b := maps.Clone(body)
	b["Unknown"] = 1
	out = append(out, bodyCand{b, "Unknown", "an unknown member"})
	return out
}

// onTheWire is v as the server reads it: marshalled and decoded again
// (json.Number("1e1") becomes 10).
func onTheWire(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}
