package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// imageAPI is a client of the server in the image.
type imageAPI struct {
	t           *testing.T
	base, token string
}

func (a *imageAPI) signIn(id, secret string) {
	a.t.Helper()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	a.do(a.post("/oauth/token", "application/x-www-form-urlencoded",
		strings.NewReader(url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret},
			"audience": {"https://api.haulgraph.local"}}.Encode())), "application/json", &tok)
	if tok.AccessToken == "" {
		a.t.Fatal("no access token")
	}
	a.token = tok.AccessToken
}

func (a *imageAPI) post(path, contentType string, body io.Reader) *http.Request {
	a.t.Helper()
	req, err := http.NewRequest("POST", a.base+path, body)
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	return req
}

// do sends req with the token, wants 200 of contentType and decodes a
// JSON answer into v (nil: returns the bytes).
func (a *imageAPI) do(req *http.Request, contentType string, v any) []byte {
	a.t.Helper()
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		a.t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), contentType) {
		a.t.Fatalf("%s %s: %d %s, want 200 %s: %s", req.Method, req.URL.Path, res.StatusCode, res.Header.Get("Content-Type"), contentType, b)
	}
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			a.t.Fatalf("%s %s: %v: %s", req.Method, req.URL.Path, err, b)
		}
	}
	return b
}

func (a *imageAPI) graphQL(query string, data any) {
	a.t.Helper()
	body, _ := json.Marshal(map[string]string{"query": query})
	a.do(a.post("/graphql", "application/json", bytes.NewReader(body)), "application/json", graphQLData(data))
}

// graphQLData decodes a GraphQL answer's data into v, failing on errors.
type graphQLAnswer struct{ data any }

func graphQLData(v any) *graphQLAnswer { return &graphQLAnswer{data: v} }

func (g *graphQLAnswer) UnmarshalJSON(b []byte) error {
	var res struct {
		Data   json.RawMessage
		Errors []any
	}
	if err := json.Unmarshal(b, &res); err != nil {
		return err
	}
	if len(res.Errors) > 0 {
		return fmt.Errorf("GraphQL errors: %v", res.Errors)
	}
	return json.Unmarshal(res.Data, g.data)
}

// multipart posts fields, then file as part name, and decodes the answer.
func (a *imageAPI) multipart(path string, fields map[string]string, name, filename string, file []byte, v any) {
	a.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for _, k := range []string{"operations", "map", "DocumentType"} {
		if val, ok := fields[k]; ok {
			_ = w.WriteField(k, val)
		}
	}
	part, _ := w.CreateFormFile(name, filename)
	_, _ = part.Write(file)
	_ = w.Close()
	a.do(a.post(path, w.FormDataContentType(), &body), "application/json", v)
}

// download fetches a signed link's path and query from the server (the
// link names the public URL, here the image's default).
func (a *imageAPI) download(link string) []byte {
	a.t.Helper()
	u, err := url.Parse(link)
	if err != nil || u.Path == "" {
		a.t.Fatalf("download link %q: %v", link, err)
	}
	req, _ := http.NewRequest("GET", a.base+u.RequestURI(), nil)
	anonymous := imageAPI{t: a.t, base: a.base} // the link is the credential
	return anonymous.do(req, "", nil)
}

func (a *imageAPI) get(path, contentType string) []byte {
	a.t.Helper()
	req, _ := http.NewRequest("GET", a.base+path, nil)
	return a.do(req, contentType, nil)
}
