package rest

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

// TestStatementPageJSONIsEncodingJSON: appendStatementPage writes what
// encoding/json writes for the envelope, byte for byte, with every field of
// a statement filled (reflectively, so a field added to the domain type
// and not here fails), with every optional one absent, and with strings
// that need escaping.
func TestStatementPageJSONIsEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, absent := range []bool{false, true} {
		f := &filler{absent: absent}
		var items []reads.Statement
		for range 3 {
			var s reads.Statement
			f.fill(reflect.ValueOf(&s).Elem())
			items = append(items, s)
		}
		for _, e := range []Envelope[reads.Statement]{
			{Page: 2, PageSize: 3, Total: 1234, Items: items},
			{Page: 0, PageSize: 100, Total: 0, Items: []reads.Statement{}},
		} {
			var want bytes.Buffer
			_ = json.NewEncoder(&want).Encode(e)
			if got := appendStatementPage(nil, e); !bytes.Equal(got, want.Bytes()) {
				t.Fatalf("absent=%v:\n got %s\nwant %s", absent, got, want.Bytes())
			}
		}
	}
}

// filler sets every exported field to a value of its type; optional ones
// (pointers, slices) stay nil when absent.
type filler struct {
	absent bool
	n      int
}

var awkward = []string{"plain", `quote " back \ <b> & é`, "", "line\nsep\u2028tab\t\x01", "bad \xff utf-8"}

func (f *filler) fill(v reflect.Value) {
	f.n++
	switch x := v.Addr().Interface().(type) {
	case *decimal.Decimal:
		*x = decimal.New(int64(f.n*1379-5000), -int32(f.n%4))
		return
	case *domain.Date:
		*x = domain.DateOf(time.Date(2025, 1, f.n%28+1, 0, 0, 0, 0, time.UTC))
		return
	case *uuid.UUID:
		*x = uuid.New()
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(awkward[f.n%len(awkward)])
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(int64(f.n))
	case reflect.Pointer:
		if !f.absent {
			v.Set(reflect.New(v.Type().Elem()))
			f.fill(v.Elem())
		}
	case reflect.Slice:
		if !f.absent {
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
			for i := range 2 {
				f.fill(v.Index(i))
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				f.fill(v.Field(i))
			}
		}
	default:
		panic("filler: no value for " + v.Type().String())
	}
}
