// Package jsonkey finds an object key that repeats another of the same
// object as encoding/json matches field names: case-insensitively, with
// Unicode simple folding ("client_ſecret" is "client_secret"). With such a
// repeat, which value counts depends on the parser: ours takes the last,
// a proxy, a log or an exact-match parser may take another.
package jsonkey

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// maxDepth is encoding/json's own nesting bound: deeper documents fail to
// decode anyway, so the walk stops there.
const maxDepth = 10000

// Repeated returns the path of the first key that repeats an earlier key
// of its object, in the decoders' notation ("StatementDateRange.START",
// "Items[2].id"); ok is false when none does. Data that is not one
// well-formed JSON value reports no repeat: the decoder that follows
// refuses it in its own words.
func Repeated(data []byte) (path string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // numbers are skipped, not converted
	var stack []frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
			top := &stack[n-1]
			if k, isKey := tok.(string); isKey {
				f := Fold(k)
				if top.seen[f] {
					return pathOf(stack, k), true
				}
				if top.seen == nil {
					top.seen = map[string]bool{}
				}
				top.seen[f], top.name, top.wantKey = true, k, false
				continue
			}
			stack = stack[:n-1] // the closing brace
		} else {
			switch tok {
			case json.Delim('{'), json.Delim('['):
				if len(stack) == maxDepth {
					return "", false
				}
				stack = append(stack, frame{object: tok == json.Delim('{'), wantKey: true})
				continue
			case json.Delim(']'):
				stack = stack[:len(stack)-1]
			}
		}
		// A value ended.
		if len(stack) == 0 {
			return "", false
		}
		if top := &stack[len(stack)-1]; top.object {
			top.wantKey = true
		} else {
			top.index++
		}
	}
}

// frame is one object or array the walk is inside.
type frame struct {
	object  bool
	wantKey bool            // an object's next token is a key or its end
	name    string          // an object's current key
	index   int             // an array's current element
	seen    map[string]bool // an object's keys so far, folded
}

// pathOf names key inside the values on stack; an empty key is `""`, so
// that a path is never empty.
func pathOf(stack []frame, key string) string {
	var b []byte
	for _, f := range stack[:len(stack)-1] {
		if f.object {
			if len(b) > 0 {
				b = append(b, '.')
			}
			b = append(b, name(f.name)...)
		} else {
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(f.index), 10)
			b = append(b, ']')
		}
	}
	if len(b) > 0 {
		b = append(b, '.')
	}
	return string(append(b, name(key)...))
}

func name(key string) string {
	if key == "" {
		return `""`
	}
	return key
}

// Fold is encoding/json's key folding: ASCII letters upper-cased, every
// other rune replaced by the smallest rune of its simple-fold orbit, so
// that Fold(a) == Fold(b) exactly when encoding/json matches a with b (and
// strings.EqualFold(a, b) holds).
func Fold(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		out = utf8.AppendRune(out, foldRune(r))
		i += n
	}
	return string(out)
}

func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}
