package rest

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/jsonkey"
)

// checkQuery refuses a query string that could be read two ways: a pair
// that does not decode (url.ParseQuery would drop it silently), or a
// parameter given twice in any spelling: names match case-insensitively
// (queryParam), so format=csv&FORMAT=ndjson names one parameter twice and
// which value counted would depend on the order of a map walk. A name in
// repeatable (a list such as /events?type=) may repeat. The refusal names
// the later spelling.
func checkQuery(raw string, repeatable []string) error {
	seen := map[string]bool{}
	for pair := range strings.SplitSeq(raw, "&") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		name, err1 := url.QueryUnescape(k)
		_, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil || strings.Contains(pair, ";") { // url.ParseQuery refuses a ";" anywhere in a pair
			return domain.FieldError("query", "the query string is malformed: "+domain.Quote(truncate(pair, 64))+" is not a percent-encoded name=value pair")
		}
		f := jsonkey.Fold(name)
		if seen[f] && !slices.ContainsFunc(repeatable, func(r string) bool { return strings.EqualFold(r, name) }) {
			return domain.FieldError(name, fmt.Sprintf("%s is given more than once (query parameter names match case-insensitively): give it once", name))
		}
		seen[f] = true
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// queryParam returns a query parameter matched case-insensitively (as the
// ASP.NET service these routes replace binds them), nil when absent;
// checkQuery has made sure at most one spelling is present.
func queryParam(q url.Values, name string) *string {
	for k, v := range q {
		if strings.EqualFold(k, name) && len(v) > 0 {
			return &v[0]
		}
	}
	return nil
}

// queryList returns every value of a repeatable parameter (name matched
// case-insensitively), comma-separated values split, in no set order. The
// values are as sent (an empty one, a space, is domain's to refuse).
func queryList(q url.Values, name string) []string {
	var out []string
	for k, vs := range q {
		if !strings.EqualFold(k, name) {
			continue
		}
		for _, v := range vs {
			out = append(out, strings.Split(v, ",")...)
		}
	}
	return out
}
