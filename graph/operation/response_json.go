package operation

import (
	"encoding/json"
	"io"

	"github.com/99designs/gqlgen/graphql"
)

// A response is written as json.Marshal would write it but with data copied
// as it is: encoding/json re-scans a RawMessage to compact and HTML-escape
// it, which for a dashboard page (~100 KB) cost a tenth of the request.
// gqlgen writes data compact and valid; only <, > and & in strings stay as
// they are (any JSON parser reads both forms alike).

// responseParts returns what goes before and after resp's data.
func responseParts(resp *graphql.Response) (head, tail []byte, err error) {
	head = append(head, '{')
	if len(resp.Errors) > 0 {
		b, err := json.Marshal(resp.Errors)
		if err != nil {
			return nil, nil, err
		}
		head = append(append(append(head, `"errors":`...), b...), ',')
	}
	head = append(head, `"data":`...)
	rest, err := json.Marshal(struct {
		Label      string         `json:"label,omitempty"`
		Path       any            `json:"path,omitempty"`
		HasNext    *bool          `json:"hasNext,omitempty"`
		Extensions map[string]any `json:"extensions,omitempty"`
	}{resp.Label, pathOrNil(resp), resp.HasNext, resp.Extensions})
	if err != nil {
		return nil, nil, err
	}
	if len(rest) > 2 { // more than {}
		tail = append(append(tail, ','), rest[1:len(rest)-1]...)
	}
	return head, append(tail, '}'), nil
}

func pathOrNil(resp *graphql.Response) any {
	if len(resp.Path) == 0 {
		return nil
	}
	return resp.Path
}

func responseData(resp *graphql.Response) []byte {
	if resp.Data == nil {
		return []byte("null")
	}
	return resp.Data
}

// EncodeResponse is resp as one JSON document.
func EncodeResponse(resp *graphql.Response) ([]byte, error) {
	head, tail, err := responseParts(resp)
	if err != nil {
		return nil, err
	}
	data := responseData(resp)
	out := make([]byte, 0, len(head)+len(data)+len(tail))
	return append(append(append(out, head...), data...), tail...), nil
}

// WriteResponseJSON writes resp and a newline to w without copying data.
func WriteResponseJSON(w io.Writer, resp *graphql.Response) {
	head, tail, err := responseParts(resp)
	if err != nil {
		_, _ = io.WriteString(w, `{"errors":[{"message":"the response could not be encoded","extensions":{"code":"INTERNAL"}}],"data":null}`+"\n")
		return
	}
	for _, b := range [][]byte{head, responseData(resp), append(tail, '\n')} {
		if _, err := w.Write(b); err != nil {
			return
		}
	}
}
