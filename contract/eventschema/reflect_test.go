package eventschema

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/loads"
)

// The schemas are held to the Go types that build the payloads: every JSON
// field of the struct is a property and every property a field, with the
// same JSON type, nullability and requiredness; nested structs recurse.
func TestDefinitionsMatchGoTypes(t *testing.T) {
	t.Parallel()
	defs := Definitions(func(name string) string { return "#/" + name })
	c := &typeCheck{t: t, defs: defs}
	c.object("Load", reflect.TypeFor[domain.Load](), defs[DefLoad])
	c.object("Trip", reflect.TypeFor[domain.Trip](), defs[DefTrip])
	c.object("Change", reflect.TypeFor[domain.Change](), defs[DefChange])
	c.object("Diff", reflect.TypeFor[domain.Diff](), defs[DefLoadDiff])
	c.object("Diff", reflect.TypeFor[domain.Diff](), defs[DefTripDiff])
	c.object("Envelope", reflect.TypeFor[domain.Envelope](), defs[EnvelopeName(domain.EventLoadChanged)])

	// data: every event type's data is part of EventData, and together
	// they are all of it.
	var union []string
	for _, et := range domain.EventTypes {
		data := props(defs[EnvelopeName(et)])["data"].(S)
		for name, p := range props(data) {
			f, ok := jsonField(reflect.TypeFor[domain.EventData](), name)
			if !ok {
				t.Errorf("%s data.%s: no such field in domain.EventData", et, name)
				continue
			}
			c.value(et+" data."+name, f.Type, p.(S), slices.Contains(required(data), name))
			union = append(union, name)
		}
	}
	for _, name := range jsonNames(reflect.TypeFor[domain.EventData]()) {
		if !slices.Contains(union, name) {
			t.Errorf("domain.EventData.%s is in no event type's data", name)
		}
	}

	// previousAttributes carries exactly the fields a diff compares, each
	// with its snapshot type.
	for _, x := range []struct {
		prev, snap string
		fields     []domain.Field
	}{{DefLoadPrev, DefLoad, loads.LoadDiffFields()}, {DefTripPrev, DefTrip, loads.TripDiffFields()}} {
		got := keysOf(props(defs[x.prev]))
		want := strs(x.fields)
		sort.Slice(want, func(i, j int) bool { return want[i].(string) < want[j].(string) })
		if !reflect.DeepEqual(strs(got), want) {
			t.Errorf("%s properties %v, want the diff fields %v", x.prev, got, want)
		}
		for _, field := range x.fields {
			f := string(field)
			if !reflect.DeepEqual(props(defs[x.prev])[f], props(defs[x.snap])[f]) {
				t.Errorf("%s.%s differs from %s.%s", x.prev, f, x.snap, f)
			}
		}
	}

	// Money renders through its own MarshalJSON: its keys are the schema's.
	b, _ := json.Marshal(domain.NewMoney(decimal.RequireFromString("131072.01"), 840))
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	if got, want := keysOf(m), keysOf(props(defs[DefMoney])); !slices.Equal(got, want) {
		t.Errorf("Money renders %v, schema has %v", got, want)
	}
}

type typeCheck struct {
	t    *testing.T
	defs map[string]S
}

func props(s S) S {
	p, _ := s["properties"].(S)
	return p
}

func required(s S) []string {
	var out []string
	for _, r := range s["required"].([]any) {
		out = append(out, r.(string))
	}
	return out
}

func keysOf[M ~map[string]any](m M) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func jsonNames(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "-" && f.IsExported() {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func jsonField(t reflect.Type, name string) (reflect.StructField, bool) {
	for f := range t.Fields() {
		n, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if n == name && f.IsExported() {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func (c *typeCheck) resolve(s S) S {
	if r, ok := s["$ref"].(string); ok {
		return c.defs[strings.TrimPrefix(r, "#/")]
	}
	return s
}

// object checks the struct t against schema s field by field.
func (c *typeCheck) object(path string, t reflect.Type, s S) {
	s = c.resolve(s)
	if got, want := keysOf(props(s)), jsonNames(t); !slices.Equal(got, want) {
		c.t.Errorf("%s: schema properties %v, Go fields %v", path, got, want)
	}
	if s["additionalProperties"] != false {
		c.t.Errorf("%s: additional properties allowed", path)
	}
	for f := range t.Fields() {
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		p, ok := props(s)[name].(S)
		if !ok {
			continue
		}
		omit := strings.Contains(opts, "omitempty")
		if p[Since] != nil {
			omit = true // always sent, but not by events stored before it
		}
		if req := slices.Contains(required(s), name); req == omit {
			c.t.Errorf("%s.%s: required %v, but omitempty is %v", path, name, req, omit)
		}
		c.value(path+"."+name, f.Type, p, true)
	}
}

// value checks one field's Go type against its schema.
func (c *typeCheck) value(path string, t reflect.Type, s S, _ bool) {
	s = c.resolve(s)
	types := map[string]bool{}
	switch x := s["type"].(type) {
	case string:
		types[x] = true
	case []any:
		for _, e := range x {
			types[e.(string)] = true
		}
	}
	null := types["null"]
	if t.Kind() == reflect.Pointer {
		if !null {
			// An omitempty pointer is absent rather than null.
			if t.Elem().Kind() != reflect.Struct {
				c.t.Errorf("%s: %s may be null, the schema does not allow it", path, t)
			}
		}
		t = t.Elem()
	} else if null {
		c.t.Errorf("%s: %s is never null, the schema allows it", path, t)
	}
	want := ""
	switch {
	case t == reflect.TypeFor[uuid.UUID]():
		want = "string"
		if s["format"] != "uuid" {
			c.t.Errorf("%s: uuid without format uuid", path)
		}
	case t == reflect.TypeFor[time.Time]():
		want = "string"
		if s["format"] != "date-time" {
			c.t.Errorf("%s: time without format date-time", path)
		}
	case t == reflect.TypeFor[decimal.Decimal](), t == reflect.TypeFor[domain.Decimal]():
		want = "number"
	case t == reflect.TypeFor[json.RawMessage]():
		return // data: checked per event type
	case t == reflect.TypeFor[domain.Money]():
		want = "object"
	case t.Kind() == reflect.String:
		want = "string"
	case t.Kind() == reflect.Int:
		want = "integer"
	case t.Kind() == reflect.Slice:
		want = "array"
		if items, ok := s["items"].(S); ok {
			c.value(path+"[]", t.Elem(), items, true)
		} else {
			c.t.Errorf("%s: array without items", path)
		}
	case t.Kind() == reflect.Map:
		want = "object"
	case t.Kind() == reflect.Struct:
		want = "object"
		c.object(path, t, s)
	default:
		c.t.Errorf("%s: no check for Go type %s", path, t)
	}
	if !types[want] && s["const"] == nil {
		c.t.Errorf("%s: Go %s renders a JSON %s, the schema says %v", path, t, want, s["type"])
	}
}
