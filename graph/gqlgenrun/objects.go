package main

import (
	"bytes"
	"fmt"
)

// plainObjects points the object marshallers that resolve no field
// concurrently and defer none (guardDefers left them with nil defer state)
// at objectJSON (graph/generated/object_json.go) instead of
// graphql.FieldSet, whose writing allocates per field.
var (
	fieldSetMake   = []byte("out := graphql.NewFieldSet(fields)\n")
	objectJSONMake = []byte("out := newObjectJSON(fields)\n")
)

func plainObjects(dir string) error {
	done, err := editGenerated(dir, func(_ string, body []byte) []byte {
		if !bytes.Contains(body, deferNil) || bytes.Contains(body, []byte("out.Concurrently(")) || bytes.Contains(body, []byte("NewView(")) {
			return body
		}
		return bytes.Replace(body, fieldSetMake, objectJSONMake, 1)
	})
	if err == nil && done == 0 {
		err = fmt.Errorf("found no plain object marshaller: gqlgen's generated code changed shape")
	}
	return err
}
