package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/jsonkey"
)

// MaxJSONBody bounds every JSON request body (docs/security.md: bodies are
// size-limited before they are read).
const MaxJSONBody = 1 << 20

// decodeJSON reads one JSON object into dst. Unknown fields are refused, as
// Stripe refuses unknown parameters: a misspelt filter must not silently
// widen a search. Field names match case-insensitively (encoding/json's rule,
// also that of the ASP.NET service the routes are compatible with), and a
// field given twice in any spelling is refused.
func decodeJSON(w http.ResponseWriter, r *http.Request, dst any) error {
	if !isJSONBody(r.Header.Get("Content-Type")) {
		return &domain.Error{Code: domain.CodeUnsupportedType,
			Message: "the request body must be application/json (or application/json-patch+json)"}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxJSONBody))
	if err != nil {
		return bodyError(err)
	}
	// A key given twice, in any spelling the matching below takes alike,
	// would be read one way here and another by an exact-match reader.
	if key, repeated := jsonkey.Repeated(body); repeated {
		return domain.FieldError(key, key+" is given more than once (field names match case-insensitively)")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return bodyError(err)
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return bodyError(err)
		}
		return invalidBody("the body must hold exactly one JSON object")
	}
	var v domain.Validation
	refuseNulls(&v, body, reflect.TypeOf(dst))
	checkText(&v, reflect.ValueOf(dst), "")
	return v.Err()
}

// checkText applies domain's text rule to every string decoded into v,
// naming each offender by its JSON path ("LocationIds[2]").
func checkText(v *domain.Validation, rv reflect.Value, path string) {
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !rv.IsNil() {
			checkText(v, rv.Elem(), path)
		}
	case reflect.String:
		v.TextField(path, rv.String())
	case reflect.Slice, reflect.Array:
		for i := range rv.Len() {
			checkText(v, rv.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Struct:
		for i := range rv.NumField() {
			f := rv.Type().Field(i)
			if f.Anonymous {
				checkText(v, rv.Field(i), path)
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				name = f.Name
			}
			if path != "" {
				name = path + "." + name
			}
			checkText(v, rv.Field(i), name)
		}
	}
}

// bodyError turns a decoding failure into a client error naming the field.
func bodyError(err error) error {
	var (
		tooBig *http.MaxBytesError
		syntax *json.SyntaxError
		typ    *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &tooBig):
		return &domain.Error{Code: domain.CodeTooLarge, Message: fmt.Sprintf("the request body exceeds %d bytes", MaxJSONBody)}
	case errors.Is(err, io.EOF):
		return invalidBody("a JSON object is required")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return invalidBody("malformed JSON: the body ends early")
	case errors.As(err, &syntax):
		return invalidBody(fmt.Sprintf("malformed JSON at byte %d: %s", syntax.Offset, syntax.Error()))
	case errors.As(err, &typ):
		if typ.Field == "" {
			return invalidBody("the body must be a JSON object")
		}
		return domain.FieldError(typ.Field, typ.Field+" must be "+jsonKind(typ.Type.Kind().String()))
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		name = strings.Trim(name, `"`)
		return domain.FieldError(name, "unknown field "+name)
	}
	return invalidBody("malformed JSON")
}

func jsonKind(goKind string) string {
	switch {
	case strings.HasPrefix(goKind, "int"), strings.HasPrefix(goKind, "uint"):
		return "an integer"
	case goKind == "string":
		return "a string"
	case goKind == "slice":
		return "an array"
	case goKind == "struct", goKind == "map":
		return "an object"
	case goKind == "bool":
		return "a boolean"
	}
	return "of another type"
}

func invalidBody(msg string) error { return domain.FieldError("body", msg) }
