package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/graph/operation"
	"github.com/haulgraph/haulgraph/respcache"
)

// httpTransport is GraphQL over HTTP for GET and POST (application/json),
// in place of gqlgen's transports, for what they get wrong:
//   - a request refused before execution (malformed body, missing query,
//     parse and validation errors, persisted query not found, operation not
//     found) carries no "data" key (graphql-http audits D586, 5E5B);
//   - a missing query is 400 (3E3A, 8764);
//   - a mutation over GET is 405 with Allow: POST;
//   - a POST of another media type is 415 with UNSUPPORTED_MEDIA_TYPE;
//   - a GET query string longer than the POST body limit is 414;
//   - several operations without operationName name the problem.
type httpTransport struct {
	maxQuery int64
	keyed    bool // each request keyed for the response cache (CachedQueries)
}

// NewHTTP is the plain HTTP transport; maxQuery bounds a GET's query string
// (the POST body limit).
func NewHTTP(maxQuery int64) graphql.Transport { return httpTransport{maxQuery: maxQuery} }

// NewCachedHTTP is NewHTTP for a server with CachedQueries: it keys each
// request for the response cache.
func NewCachedHTTP(maxQuery int64) graphql.Transport {
	return httpTransport{maxQuery: maxQuery, keyed: true}
}

// Supports takes every GET and POST: add it after the upload transport, so
// that it answers a POST of any other media type with 415.
func (t httpTransport) Supports(r *http.Request) bool {
	return r.Header.Get("Upgrade") == "" && (r.Method == http.MethodGet || r.Method == http.MethodPost)
}

func (t httpTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	params, status, gerr := t.read(r)
	if gerr != nil {
		writeRefusal(w, r, status, gerr)
		return
	}
	if t.keyed {
		r = noteRequest(r, params) // for the response cache (CachedQueries)
	}
	execute(w, r, exec, params)
}

// read decodes the request into parameters, or says why it cannot.
func (t httpTransport) read(r *http.Request) (*graphql.RawParams, int, *gqlerror.Error) {
	start := graphql.Now()
	p := &graphql.RawParams{Headers: r.Header}
	if r.Method == http.MethodGet {
		if int64(len(r.URL.RawQuery)) > t.maxQuery {
			return nil, http.StatusRequestURITooLong, operation.Coded(domain.CodeTooLarge,
				"the query string exceeds %d bytes, the limit of a POST body: send the operation with POST", t.maxQuery)
		}
		q, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			return nil, http.StatusBadRequest, operation.Coded(domain.CodeInvalid, "the query string is malformed: %v", err)
		}
		p.Query, p.OperationName = q.Get("query"), q.Get("operationName")
		for name, dst := range map[string]*map[string]any{"variables": &p.Variables, "extensions": &p.Extensions} {
			if s := q.Get(name); s != "" {
				if err := decodeJSONObject([]byte(s), dst); err != nil {
					return nil, http.StatusBadRequest, operation.Coded(domain.CodeInvalid, "%s must be a JSON object: %v", name, err)
				}
			}
		}
	} else {
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			return nil, http.StatusUnsupportedMediaType, operation.Coded(domain.CodeUnsupportedType,
				"POST a GraphQL request as application/json (or multipart/form-data for uploads)")
		}
		var buf bytes.Buffer
		if _, err := buf.ReadFrom(r.Body); err != nil {
			return nil, http.StatusBadRequest, operation.Coded(domain.CodeInvalid, "the request body could not be read")
		}
		if err := decodeJSONObject(buf.Bytes(), p); err != nil {
			return nil, http.StatusBadRequest, operation.Coded(domain.CodeInvalid, "the body must be a JSON object with query, operationName, variables and extensions: %v", err)
		}
	}
	if p.Query == "" && p.Extensions["persistedQuery"] == nil {
		return nil, http.StatusBadRequest, operation.Coded(domain.CodeInvalid, "the query parameter is required")
	}
	p.ReadTime = graphql.TraceTiming{Start: start, End: graphql.Now()}
	return p, 0, nil
}

// execute runs an operation read by a transport (HTTP or multipart).
func execute(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor, params *graphql.RawParams) {
	ctx := r.Context()
	opCtx, errs := exec.CreateOperationContext(ctx, params)
	if errs != nil {
		if params.OperationName == "" && opCtx != nil && opCtx.Doc != nil && len(opCtx.Doc.Operations) > 1 {
			errs = gqlerror.List{operation.Coded(domain.CodeInvalid,
				"the document holds %d operations: name the one to run in operationName", len(opCtx.Doc.Operations))}
		}
		resp := exec.DispatchError(graphql.WithOperationContext(ctx, opCtx), errs)
		// graphql-response+json: a request error is 4xx; application/json:
		// 200 (docs/architecture.md), except what is refused by an extension (429).
		status := http.StatusOK
		if responseType(r) == graphQLResponseJSON {
			status = http.StatusBadRequest
		}
		writeResponse(w, r, status, resp)
		return
	}
	if r.Method == http.MethodGet && opCtx.Operation.Operation != ast.Query {
		w.Header().Set("Allow", "POST")
		msg := "use POST"
		if opCtx.Operation.Operation == ast.Subscription {
			msg = streamingTransports(r)
		}
		writeRefusal(w, r, http.StatusMethodNotAllowed, operation.Coded(domain.CodeInvalid,
			"a %s cannot be sent with GET: %s", opCtx.Operation.Operation, msg))
		return
	}
	nameRequest(ctx, opCtx)
	responses, ctx := exec.DispatchOperation(ctx, opCtx)
	resp := responses(ctx)
	switch respcache.NoteFrom(ctx).Header(r, w.Header(), len(resp.Errors) == 0) {
	case http.StatusNotModified:
		w.WriteHeader(http.StatusNotModified)
		return
	case http.StatusPreconditionFailed:
		writeGraphQLError(w, r, http.StatusPreconditionFailed, "If-None-Match holds the current tag: a POST is not conditional, poll with GET", string(domain.CodeInvalid))
		return
	}
	writeResponse(w, r, http.StatusOK, resp)
}

const graphQLResponseJSON = "application/graphql-response+json"

// responseType is the media type the client asked for: the GraphQL
// response type when its Accept names it, else application/json.
func responseType(r *http.Request) string {
	if strings.Contains(r.Header.Get("Accept"), graphQLResponseJSON) {
		return graphQLResponseJSON
	}
	return "application/json"
}

// writeResponse writes a response; one without data (refused before
// execution) has no "data" key at all.
func writeResponse(w http.ResponseWriter, r *http.Request, status int, resp *graphql.Response) {
	w.Header().Set("Content-Type", responseType(r))
	w.WriteHeader(status)
	if resp.Data == nil {
		_ = json.NewEncoder(w).Encode(struct {
			Errors     gqlerror.List  `json:"errors"`
			Extensions map[string]any `json:"extensions,omitempty"`
		}{resp.Errors, resp.Extensions})
		return
	}
	operation.WriteResponseJSON(w, resp)
}

// writeRefusal answers a request refused before it became an operation.
func writeRefusal(w http.ResponseWriter, r *http.Request, status int, err *gqlerror.Error) {
	writeResponse(w, r, status, &graphql.Response{Errors: gqlerror.List{err}})
}

// decodeJSONObject decodes one JSON object (numbers kept exact).
func decodeJSONObject(b []byte, dst any) error {
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		return fmt.Errorf("not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("data after the object")
	}
	return nil
}
