package readme

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"sort"
	"strings"
)

// Ellipsis stands, in a shown answer, for what varies from run to run.
const Ellipsis = "…"

// MatchJSON compares what a step printed with the JSON answer shown: the
// output is a sequence of JSON values and so is the answer; either both hold
// as many values, compared in order, or the answer shows one value that
// every printed value must match. Values match by meaning:
//   - objects have the same keys, arrays the same length (an array ending
//     with "…" admits any further elements), numbers the same value;
//   - "…" matches any value, and "…" inside a string any text there.
func MatchJSON(want, got string) error {
	w, err := decodeAll(want)
	if err != nil {
		return fmt.Errorf("the shown answer is not JSON: %v", err)
	}
	g, err := decodeAll(got)
	if err != nil {
		return fmt.Errorf("the output is not JSON: %v", err)
	}
	if len(g) == 0 {
		return errors.New("no output, want JSON")
	}
	if len(w) != len(g) && len(w) != 1 {
		return fmt.Errorf("%d JSON values printed, %d shown", len(g), len(w))
	}
	for i := range g {
		wi := w[0]
		if len(w) == len(g) {
			wi = w[i]
		}
		if err := matchValue("$", wi, g[i]); err != nil {
			return fmt.Errorf("value %d: %v", i+1, err)
		}
	}
	return nil
}

func decodeAll(s string) ([]any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var out []any
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
}

func matchValue(path string, want, got any) error {
	if s, ok := want.(string); ok && strings.Contains(s, Ellipsis) {
		if s == Ellipsis {
			return nil
		}
		gs, ok := got.(string)
		if !ok || !pattern(s).MatchString(gs) {
			return fmt.Errorf("%s: got %s, want %q", path, show(got), s)
		}
		return nil
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: got %s, want an object", path, show(got))
		}
		if wk, gk := keys(w), keys(g); !reflect.DeepEqual(wk, gk) {
			return fmt.Errorf("%s: keys %v, want %v", path, gk, wk)
		}
		for _, k := range keys(w) {
			if err := matchValue(path+"."+k, w[k], g[k]); err != nil {
				return err
			}
		}
		return nil
	case []any:
		g, ok := got.([]any)
		if !ok {
			return fmt.Errorf("%s: got %s, want an array", path, show(got))
		}
		open := len(w) > 0 && w[len(w)-1] == Ellipsis
		if open {
			w = w[:len(w)-1]
		}
		if len(g) < len(w) || (!open && len(g) != len(w)) {
			return fmt.Errorf("%s: %d elements, want %d", path, len(g), len(w))
		}
		for i := range w {
			if err := matchValue(fmt.Sprintf("%s[%d]", path, i), w[i], g[i]); err != nil {
				return err
			}
		}
		return nil
	case json.Number:
		g, ok := got.(json.Number)
		wf, _ := w.Float64()
		gf, _ := g.Float64()
		if !ok || wf != gf {
			return fmt.Errorf("%s: got %s, want %s", path, show(got), w)
		}
		return nil
	default:
		if !reflect.DeepEqual(want, got) {
			return fmt.Errorf("%s: got %s, want %s", path, show(got), show(want))
		}
		return nil
	}
}

func keys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func show(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// pattern matches a whole text in which "…" stands for any text.
func pattern(s string) *regexp.Regexp {
	parts := strings.Split(s, Ellipsis)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile(`(?s)\A` + strings.Join(parts, ".*") + `\z`)
}

// MatchText compares a step's output with a shown ```text answer line by
// line (trailing blanks ignored); "…" in a line stands for any text.
func MatchText(want, got string) error {
	w := lines(want)
	g := lines(got)
	if len(w) != len(g) {
		return fmt.Errorf("%d lines printed, %d shown:\n%s", len(g), len(w), got)
	}
	for i := range w {
		if !pattern(w[i]).MatchString(g[i]) {
			return fmt.Errorf("line %d: got %q, want %q", i+1, g[i], w[i])
		}
	}
	return nil
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(s, " \t\r\n"), "\n") {
		out = append(out, strings.TrimRight(l, " \t\r"))
	}
	return out
}

var httpStatus = regexp.MustCompile(`(?m)^HTTP/[0-9.]+ ([0-9]{3})`)

// Failure finds an error in the output of a step that shows no answer: an
// HTTP status line of 4xx or 5xx (curl -i), or a JSON value that is a
// GraphQL answer with errors, an OAuth error or a problem document of 4xx or
// 5xx. It returns "" when the output holds none.
func Failure(out string) string {
	for _, m := range httpStatus.FindAllStringSubmatch(out, -1) {
		if m[1] >= "400" {
			return "HTTP status " + m[1]
		}
	}
	rest := out
	for rest != "" {
		line, next, _ := strings.Cut(rest, "\n")
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "{") {
			dec := json.NewDecoder(strings.NewReader(rest))
			dec.UseNumber()
			var v map[string]any
			if dec.Decode(&v) == nil {
				if f := jsonFailure(v); f != "" {
					return f
				}
				rest = strings.TrimLeft(rest[dec.InputOffset():], " \t")
				rest = strings.TrimPrefix(rest, "\n")
				continue
			}
		}
		rest = next
	}
	return ""
}

func jsonFailure(v map[string]any) string {
	if errs, ok := v["errors"].([]any); ok && len(errs) > 0 {
		return "GraphQL errors: " + show(errs)
	}
	if e, ok := v["error"].(string); ok {
		return "error " + e + ": " + show(v["error_description"])
	}
	if n, ok := v["status"].(json.Number); ok {
		if s, _ := n.Int64(); s >= 400 {
			if _, isProblem := v["title"]; isProblem {
				return "problem " + show(v)
			}
		}
	}
	return ""
}
