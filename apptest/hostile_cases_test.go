package apptest_test

// The GraphQL, token and upload cases of TestHostileInput.

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/haulgraph/haulgraph/domain"
)

func graphQLCases(e *env) []hostile {
	q := func(name, query string, vars map[string]any, code string) hostile {
		return hostile{name: "GraphQL " + name, method: "POST", path: "/graphql", body: gqlBody(query, vars), status: 200, format: graphQL, want: code}
	}
	pre := func(name, body string, status int, code string) hostile {
		return hostile{name: "GraphQL " + name, method: "POST", path: "/graphql", body: body, status: status, format: graphQLNoData, want: code}
	}
	const bad = string(domain.CodeInvalid)
	createLoad := `mutation($in:CreateLoadInput!){createLoad(input:$in){id}}`
	loadIn := func(edit func(map[string]any)) map[string]any {
		in := map[string]any{"loadNumber": "HOSTILE-1", "subsidiaryId": e.sub, "stops": []any{
			map[string]any{"type": "Pickup", "name": "A"}, map[string]any{"type": "Delivery", "name": "B"}}}
		edit(in)
		return map[string]any{"in": in}
	}
	stop := func(field, value string) func(map[string]any) {
		return func(in map[string]any) { in["stops"].([]any)[0].(map[string]any)[field] = value }
	}
	set := func(field string, value any) func(map[string]any) {
		return func(in map[string]any) { in[field] = value }
	}
	stmt := `query($f:StatementFilter!){settlementStatements(filter:$f,page:0,pageSize:5){totalCount}}`
	rng := func(start, end string) map[string]any {
		return map[string]any{"f": map[string]any{"statementDateRange": map[string]any{"start": start, "end": end}}}
	}
	const day = "2025-01-01T00:00:00Z"
	return []hostile{
		q("load NUL variable", `query($n:String!){load(loadNumber:$n){id}}`, map[string]any{"n": "\x00"}, bad),
		q("load NUL literal", `{load(loadNumber:"\u0000"){id}}`, nil, bad),
		q("load ESC", `query($n:String!){load(loadNumber:$n){id}}`, map[string]any{"n": "a\x1bb"}, bad),
		q("load unit separator", `{load(loadNumber:"a\u001fb"){id}}`, nil, bad),
		q("invoice number NUL", `query($n:String){invoice(number:$n){id}}`, map[string]any{"n": "\x00"}, bad),
		q("invoice id NUL", `query($n:ID){invoice(id:$n){id}}`, map[string]any{"n": "\x00"}, bad),
		q("users keyword NUL", `query($k:String){users(keyword:$k,page:0,pageSize:5){totalCount}}`, map[string]any{"k": "\x00"}, bad),
		q("users keyword C1", `query($k:String){users(keyword:$k,page:0,pageSize:5){totalCount}}`, map[string]any{"k": "\u0085"}, bad),
		q("trailers after NUL", `query($a:String){trailers(first:5,after:$a){totalCount}}`, map[string]any{"a": "\x00"}, bad),
		q("locations status NUL", `query($f:LocationFilter){locations(filter:$f,page:0,pageSize:5){totalCount}}`, map[string]any{"f": map[string]any{"status": []string{"\x00"}}}, bad),
		q("createLoad loadNumber NUL", createLoad, loadIn(set("loadNumber", "\x00")), bad),
		q("createLoad commodity NUL", createLoad, loadIn(set("commodity", "steel\x00")), bad),
		q("createLoad orderNumber BEL", createLoad, loadIn(set("orderNumber", "\a")), bad),
		q("createLoad subsidiaryId NUL", createLoad, loadIn(set("subsidiaryId", "\x00")), bad),
		q("createLoad stop name NUL", createLoad, loadIn(stop("name", "\x00")), bad),
		q("createLoad appointment year 0", createLoad, loadIn(stop("appointmentStart", "0000-01-01T00:00:00Z")), bad),
		q("createLoad appointment 1899", createLoad, loadIn(stop("appointmentEnd", "1899-12-31T23:59:59Z")), bad),
		q("createLoad arrivedAt bare date", createLoad, loadIn(stop("arrivedAt", "2025-01-01")), bad),
		q("createLoad departedAt no offset", createLoad, loadIn(stop("departedAt", "2025-01-01T10:00:00")), bad),
		q("updateLoad commodity NUL", `mutation($n:String!){updateLoad(loadNumber:$n,input:{commodity:"\u0000"}){id}}`, map[string]any{"n": e.load}, bad),
		q("changeLoadStatus loadNumber NUL", `mutation{changeLoadStatus(loadNumber:"\u0000",status:Covered){id}}`, nil, bad),
		q("createWebhook name NUL", `mutation($n:String){createWebhook(input:{name:$n,url:"https://example.com/h",eventTypes:["load.changed"]}){secret}}`, map[string]any{"n": "\x00"}, bad),
		q("createWebhook url NUL", `mutation($u:String){createWebhook(input:{name:"x",url:$u,eventTypes:["load.changed"]}){secret}}`, map[string]any{"u": "https://example.com/\x00"}, bad),
		q("statements start year 0", stmt, rng("0000-01-01T00:00:00Z", day), bad),
		q("statements end year 0", stmt, rng(day, "0000-01-01T00:00:00Z"), bad),
		q("statements start bare date", stmt, rng("2025-01-01", day), bad),
		q("statements end no offset", stmt, rng(day, "2025-01-31T00:00:00"), bad),
		q("statements range reversed", stmt, rng("2025-02-01T00:00:00Z", day), bad),
		q("pageSize 101", `{users(page:0,pageSize:101){totalCount}}`, nil, bad),
		q("first 0", `{trailers(first:0){totalCount}}`, nil, bad),
		pre("syntax error", gqlBody(`{load(`, nil), 200, "GRAPHQL_PARSE_FAILED"),
		pre("unknown field", gqlBody(`{nope}`, nil), 200, "GRAPHQL_VALIDATION_FAILED"),
		pre("missing variable", gqlBody(`query($n:String!){load(loadNumber:$n){id}}`, nil), 200, "GRAPHQL_VALIDATION_FAILED"),
		q("variable of the wrong type", `query($n:String!){load(loadNumber:$n){id}}`, map[string]any{"n": 5}, bad),
		pre("batched", `[{"query":"{__typename}"}]`, 400, bad),
		pre("body not JSON", `{"query":`, 400, bad),
		{name: "GraphQL no token", method: "POST", path: "/graphql", body: gqlBody(`{__typename}`, nil), header: map[string]string{"Authorization": "-"}, status: 401, format: graphQLNoData, want: string(domain.CodeUnauthenticated)},
		{name: "GraphQL PUT", method: "PUT", path: "/graphql", body: gqlBody(`{__typename}`, nil), status: 405, format: graphQLNoData, want: bad},
		{name: "GraphQL body too large", method: "POST", path: "/graphql", body: gqlBody(`{__typename}`, map[string]any{"x": strings.Repeat("a", 1<<20)}), status: 413, format: graphQLNoData, want: string(domain.CodeTooLarge)},
		{name: "GraphQL GET mutation", method: "GET", path: "/graphql?query=" + url.QueryEscape(`mutation{changeLoadStatus(loadNumber:"x",status:Covered){id}}`),
			status: 405, format: graphQLNoData, want: bad, allow: "POST"},
		{name: "GraphQL GET subscription", method: "GET", path: "/graphql?query=" + url.QueryEscape(`subscription{loadChanged{id}}`),
			status: 405, format: graphQLNoData, want: bad, allow: "POST"},
		{name: "GraphQL GET missing query", method: "GET", path: "/graphql?operationName=x", status: 400, format: graphQLNoData, want: bad},
		{name: "GraphQL GET variables not JSON", method: "GET", path: "/graphql?query=%7B__typename%7D&variables=%7B", status: 400, format: graphQLNoData, want: bad},
		{name: "GraphQL GET query string over the body limit", method: "GET", path: "/graphql?query=" + strings.Repeat("a", 1<<20+1), status: 414, format: graphQLNoData, want: string(domain.CodeTooLarge)},
		{name: "GraphQL headers over 64 KB", method: "POST", path: "/graphql", body: gqlBody(`{__typename}`, nil), header: map[string]string{"X-Big": strings.Repeat("h", 65<<10)},
			status: 431, format: graphQLNoData, want: string(domain.CodeTooLarge)},
		{name: "REST headers over 64 KB", method: "GET", path: "/api/p/v1/trailers", header: map[string]string{"X-Big": strings.Repeat("h", 65<<10)}, status: 431, format: problemJSON},
		{name: "GraphQL text/plain", method: "POST", path: "/graphql", body: `{__typename}`, header: map[string]string{"Content-Type": "text/plain"},
			status: 415, format: graphQLNoData, want: string(domain.CodeUnsupportedType)},
		{name: "GraphQL form body", method: "POST", path: "/graphql", body: `query={__typename}`, header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"},
			status: 415, format: graphQLNoData, want: string(domain.CodeUnsupportedType)},
		{name: "GraphQL application/graphql", method: "POST", path: "/graphql", body: `{__typename}`, header: map[string]string{"Content-Type": "application/graphql"},
			status: 415, format: graphQLNoData, want: string(domain.CodeUnsupportedType)},
		pre("missing query", `{"variables":{}}`, 400, bad),
		pre("empty query", `{"query":""}`, 400, bad),
		pre("query not a string", `{"query":5}`, 400, bad),
		pre("several operations without operationName", gqlBody(`query A{__typename} query B{__typename}`, nil), 200, bad),
		pre("operation not found", `{"query":"query A{__typename}","operationName":"B"}`, 200, "GRAPHQL_VALIDATION_FAILED"),
		pre("persisted query not found", `{"extensions":{"persistedQuery":{"version":1,"sha256Hash":"`+strings.Repeat("0", 64)+`"}}}`, 200, "PERSISTED_QUERY_NOT_FOUND"),
		{name: "GraphQL syntax error as graphql-response+json", method: "POST", path: "/graphql", body: gqlBody(`{`, nil), header: map[string]string{"Accept": "application/graphql-response+json"},
			status: 400, format: graphQLNoData, want: "GRAPHQL_PARSE_FAILED"},
		{name: "GraphQL GET NUL variable", method: "GET", path: "/graphql?query=" + url.QueryEscape(`query($n:String!){load(loadNumber:$n){id}}`) + "&variables=" + url.QueryEscape(`{"n":"\u0000"}`), status: 200, format: graphQL, want: bad},
	}
}

func tokenCases(e *env) []hostile {
	form := func(name, body string, status int, code string) hostile {
		return hostile{name: "token " + name, method: "POST", path: "/oauth/token", body: body,
			header: map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Authorization": "-"}, status: status, format: oauthJSON, want: code}
	}
	js := func(name, body string, status int, code string) hostile {
		return hostile{name: "token JSON " + name, method: "POST", path: "/oauth/token", body: body,
			header: map[string]string{"Authorization": "-"}, status: status, format: oauthJSON, want: code}
	}
	aud := url.QueryEscape(e.srv.Config.Audience)
	ok := "grant_type=client_credentials&client_secret=" + url.QueryEscape(e.secret) + "&audience=" + aud
	return []hostile{
		form("client_id NUL", ok+"&client_id=%00", 400, "invalid_request"),
		form("client_id NUL suffix", ok+"&client_id="+e.clientID+"%00", 400, "invalid_request"),
		form("client_id invalid UTF-8", ok+"&client_id=%FF", 400, "invalid_request"),
		js("client_id NUL", fmt.Sprintf(`{"grant_type":"client_credentials","client_id":"\u0000","client_secret":%q,"audience":%q}`, e.secret, e.srv.Config.Audience), 400, "invalid_request"),
		form("no grant_type", "client_id=x&client_secret=y", 400, "invalid_request"),
		form("password grant", "grant_type=password&client_id=x&client_secret=y", 400, "unsupported_grant_type"),
		form("repeated client_id", ok+"&client_id=a&client_id=b", 400, "invalid_request"),
		form("wrong secret", "grant_type=client_credentials&client_id="+e.clientID+"&client_secret=nope&audience="+aud, 401, "invalid_client"),
		form("unknown client", "grant_type=client_credentials&client_id=nobody&client_secret=nope&audience="+aud, 401, "invalid_client"),
		form("wrong audience", ok+"&client_id="+e.clientID+"&audience=x", 400, "invalid_request"),
		js("malformed", `{"grant_type":`, 400, "invalid_request"),
		js("array", `[]`, 400, "invalid_request"),
		{name: "token text/plain", method: "POST", path: "/oauth/token", body: "grant_type=client_credentials",
			header: map[string]string{"Content-Type": "text/plain", "Authorization": "-"}, status: 415, format: oauthJSON, want: "invalid_request"},
	}
}

func uploadCases(e *env) []hostile {
	up := func(name, ct, body string, status int, field string) hostile {
		h := multipartCT
		if ct != "" {
			h = map[string]string{"Content-Type": ct}
		}
		return hostile{name: "upload " + name, method: "POST", path: "/api/p/v1/loads/" + e.load + "/document", header: h, body: body, status: status, format: problemJSON, want: field}
	}
	gup := func(name, ops, mapping string, files ...string) hostile {
		parts := []string{formField("operations", ops), formField("map", mapping)}
		parts = append(parts, files...)
		return hostile{name: "GraphQL upload " + name, method: "POST", path: "/graphql", header: multipartCT, body: multipartBody(parts...),
			status: 400, format: graphQLNoData, want: string(domain.CodeInvalid)}
	}
	ops := gqlBody(`mutation($f:Upload!,$n:String!){uploadLoadDocument(loadNumber:$n,documentType:"BOL",file:$f){id}}`, map[string]any{"f": nil, "n": e.load})
	return []hostile{
		up("malformed part header", "", multipartBody("Content-Disposition form-data; name=\"File\"\r\n\r\nx"), 400, ""),
		up("header without value", "", multipartBody("Content-Disposition\r\n\r\nx"), 400, ""),
		up("no closing boundary", "", "--B\r\n"+formFile("File", "a.pdf"), 400, ""),
		up("no boundary parameter", "multipart/form-data", multipartBody(formFile("File", "a.pdf")), 400, ""),
		up("text/plain", "text/plain", "hello", 415, ""),
		up("DocumentType NUL", "", multipartBody(formField("DocumentType", "BOL\x00"), formFile("File", "a.pdf")), 400, "DocumentType"),
		up("FileName NUL", "", multipartBody(formField("DocumentType", "Bill of Lading"), formField("FileName", "a\x00.pdf"), formFile("File", "a.pdf")), 400, "FileName"),
		up("two files", "", multipartBody(formField("DocumentType", "Bill of Lading"), formFile("File", "a.pdf"), formFile("File", "b.pdf")), 400, ""),
		up("no file", "", multipartBody(formField("DocumentType", "Bill of Lading")), 400, ""),
		{name: "upload load id NUL", method: "POST", path: "/api/p/v1/loads/%00/document", header: multipartCT,
			body: multipartBody(formFile("File", "a.pdf")), status: 400, format: problemJSON, want: "loadNumber"},
		gup("malformed part header", ops, `{"0":["variables.f"]}`, "Content-Disposition form-data; name=\"0\"\r\n\r\nx"),
		gup("two files for one variable", ops, `{"0":["variables.f"],"1":["variables.f"]}`, formFile("0", "a.pdf"), formFile("1", "b.pdf")),
		gup("map to a missing variable", ops, `{"0":["variables.nope"]}`, formFile("0", "a.pdf")),
		gup("map through a string", ops, `{"0":["variables.n.0"]}`, formFile("0", "a.pdf")),
		gup("map to a non-null value", ops, `{"0":["variables.n"]}`, formFile("0", "a.pdf")),
		gup("map path without variables.", ops, `{"0":["f"]}`, formFile("0", "a.pdf")),
		gup("map key bound to nothing", ops, `{"0":[]}`, formFile("0", "a.pdf")),
		gup("operations without query", `{"variables":{"f":null}}`, `{"0":["variables.f"]}`, formFile("0", "a.pdf")),
		gup("map before operations", `{"0":["variables.f"]}`, ops, formFile("0", "a.pdf")),
		gup("file sent twice", ops, `{"0":["variables.f"]}`, formFile("0", "a.pdf"), formFile("0", "a.pdf")),
		gup("map not JSON", ops, `{"0":`, formFile("0", "a.pdf")),
		gup("operations not JSON", `{"query":`, `{"0":["variables.f"]}`, formFile("0", "a.pdf")),
		gup("mapped file missing", ops, `{"0":["variables.f"]}`),
		gup("file not in the map", ops, `{}`, formFile("0", "a.pdf")),
	}
}

// waitFor polls cond until it holds or the deadline passes.
