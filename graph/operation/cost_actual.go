package operation

import "github.com/vektah/gqlparser/v2/ast"

// The actual cost is read once from the encoded response (no hook on every
// field): data is walked with the response keys of the operation, and each
// object under a key whose field is priced (walker.priced) costs 1, as the
// requested cost priced it. Objects under other keys (money, totals, a
// statement's driver) and inside scalars (Map) are free.

// responseKeys are the keys of the objects one selection set returns: for
// each key whose field is an object (or a list of them), how it is priced.
type responseKeys map[string]*responseKey

type responseKey struct {
	priced bool         // each object under the key costs 1
	keys   responseKeys // the keys of those objects
}

// returned is the response keys of set on parent. Fragments are merged
// whatever their type condition (a union's members add their keys up, as
// the requested cost adds their prices) and read once per parent type.
func (w *walker) returned(set ast.SelectionSet, parent *ast.Definition) responseKeys {
	out := responseKeys{}
	if parent == nil {
		return out
	}
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			fd := parent.Fields.ForName(s.Name)
			if fd == nil {
				continue
			}
			def := w.schema.Types[fd.Type.Name()]
			if def == nil || def.IsLeafType() {
				continue
			}
			key := s.Alias
			if key == "" {
				key = s.Name
			}
			out.add(key, &responseKey{priced: w.priced(s, fd, parent), keys: w.returned(s.SelectionSet, def)})
		case *ast.InlineFragment:
			out.merge(w.returned(s.SelectionSet, w.on(s.TypeCondition, parent)))
		case *ast.FragmentSpread:
			if f := w.doc.Fragments.ForName(s.Name); f != nil {
				on := w.on(f.TypeCondition, parent)
				out.merge(remember(w.keys, fragmentAt{s.Name, on.Name}, func() responseKeys { return w.returned(f.SelectionSet, on) }))
			}
		}
	}
	return out
}

// merge adds the keys of from to ks; ks is its caller's own map, the keys
// of from may be shared (a fragment's), so neither is changed in place.
func (ks responseKeys) merge(from responseKeys) {
	for key, k := range from {
		ks.add(key, k)
	}
}

func (ks responseKeys) add(key string, k *responseKey) {
	had := ks[key]
	if had == nil || had == k {
		ks[key] = k
		return
	}
	both := &responseKey{priced: had.priced || k.priced, keys: responseKeys{}}
	both.keys.merge(had.keys)
	both.keys.merge(k.keys)
	ks[key] = both
}

// actualCost is what data, the response's encoded data, cost: the priced
// objects it holds below data itself. It reads data once, without decoding
// it; every step moves forward, so malformed data ends the count.
func actualCost(data []byte, keys responseKeys) int {
	r := costReader{data: data}
	if r.space(); r.peek() != '{' {
		return 0
	}
	r.object(keys)
	return r.n
}

type costReader struct {
	data []byte
	i, n int
}

// peek is the byte at r.i, 0 past the end.
func (r *costReader) peek() byte {
	if r.i < len(r.data) {
		return r.data[r.i]
	}
	return 0
}

func (r *costReader) space() {
	for b := r.peek(); b == ' ' || b == '\t' || b == '\n' || b == '\r'; b = r.peek() {
		r.i++
	}
}

// value reads the value at r.i, returned under k (nil: a scalar's, or a
// key the operation did not select).
func (r *costReader) value(k *responseKey) {
	switch r.space(); {
	case k != nil && r.peek() == '{':
		if k.priced {
			r.n++
		}
		r.object(k.keys)
	case k != nil && r.peek() == '[':
		r.i++
		for r.space(); r.i < len(r.data) && r.peek() != ']'; r.space() {
			r.value(k)
			if r.space(); r.peek() == ',' {
				r.i++
			}
		}
		r.i = min(r.i+1, len(r.data))
	default:
		r.skip()
	}
}

// object reads the object at r.i, whose keys are keys.
func (r *costReader) object(keys responseKeys) {
	r.i++ // {
	for r.space(); r.i < len(r.data) && r.peek() != '}'; r.space() {
		start := r.i
		if r.peek() != '"' {
			r.i = len(r.data)
			return
		}
		r.str()
		key := r.data[start:r.i]
		if r.space(); r.peek() != ':' || len(key) < 2 {
			r.i = len(r.data)
			return
		}
		r.i++
		if r.space(); r.peek() == '{' || r.peek() == '[' {
			r.value(keys[string(key[1:len(key)-1])])
		} else {
			r.skip() // a scalar: no key to look up
		}
		if r.space(); r.peek() == ',' {
			r.i++
		}
	}
	r.i = min(r.i+1, len(r.data))
}

// skip moves r.i past the value at it, whatever it holds, and past at
// least one byte.
func (r *costReader) skip() {
	start, depth := r.i, 0
	for r.i < len(r.data) {
		switch b := r.data[r.i]; {
		case b == '"':
			if r.str(); depth == 0 {
				return
			}
			continue
		case depth == 0 && (b == '}' || b == ']' || b == ',' || b == ':' || b == ' ' || b == '\t' || b == '\n' || b == '\r'):
			if r.i == start { // not a value: step over it
				r.i++
			}
			return // a literal ended
		case b == '{' || b == '[':
			depth++
		case b == '}' || b == ']':
			if depth--; depth == 0 {
				r.i++
				return
			}
		}
		r.i++
	}
}

// str moves r.i past the string that starts at it.
func (r *costReader) str() {
	for r.i++; r.i < len(r.data); r.i++ {
		switch r.data[r.i] {
		case '\\':
			r.i++
		case '"':
			r.i++
			return
		}
	}
	r.i = min(r.i, len(r.data))
}
