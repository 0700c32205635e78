package haulgraph

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/sdk/haulgraph/internal/openapi"
)

// The public types are written by hand; the served OpenAPI document's
// schemas, generated into internal/openapi, hold them to the contract:
// every field the API sends has a field here (at every depth).
func TestTypesCoverTheSchemas(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		schema, public any
	}{
		{openapi.Load{}, Load{}},
		{openapi.EventTrip{}, Trip{}},
		{openapi.EventEnvelope{}, Event{}},
		{openapi.Statement{}, Statement{}},
		{openapi.Money{}, Money{}},
		{openapi.Webhook{}, Webhook{}},
		{openapi.WebhookWithSecret{}, Webhook{}},
		{openapi.WebhookDelivery{}, Delivery{}},
		{openapi.Document{}, Document{}},
		{openapi.Invoice{}, Invoice{}},
		{openapi.Trailer{}, Trailer{}},
		{openapi.Location{}, Location{}},
		{openapi.User{}, User{}},
	} {
		cover(t, reflect.TypeOf(c.schema).Name(), reflect.TypeOf(c.schema), reflect.TypeOf(c.public))
	}
}

var timeType = reflect.TypeOf(time.Time{})

// cover fails for each JSON field of schema that public lacks (matched as
// encoding/json matches them, regardless of case), descending into the
// structs they share.
func cover(t *testing.T, path string, schema, public reflect.Type) {
	t.Helper()
	schema, public = elem(schema), elem(public)
	if schema.Kind() != reflect.Struct || public.Kind() != reflect.Struct || schema == timeType || public == timeType {
		return
	}
	have := fields(public)
	for name, st := range fields(schema) {
		pt, ok := have[name]
		if !ok {
			t.Errorf("%s.%s: no field of %s carries it", path, name, public.Name())
			continue
		}
		cover(t, path+"."+name, st, pt)
	}
}

func elem(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	return t
}

// fields maps a struct's JSON names (lower case) to their types.
func fields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if f.Anonymous && name == "" {
			for k, v := range fields(elem(f.Type)) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[strings.ToLower(name)] = f.Type
	}
	return out
}
