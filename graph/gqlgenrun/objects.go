package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
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
	files, err := filepath.Glob(filepath.Join(dir, "*.generated.go"))
	if err != nil {
		return err
	}
	sort.Strings(files)
	done := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		out, n := rewriteFuncs(src, func(_ string, body []byte) []byte {
			if !bytes.Contains(body, deferNil) || bytes.Contains(body, []byte("out.Concurrently(")) || bytes.Contains(body, []byte("NewView(")) {
				return body
			}
			return bytes.Replace(body, fieldSetMake, objectJSONMake, 1)
		})
		done += n
		if n > 0 {
			if err := os.WriteFile(f, out, 0o644); err != nil {
				return err
			}
		}
	}
	if done == 0 {
		return fmt.Errorf("found no plain object marshaller: gqlgen's generated code changed shape")
	}
	return nil
}
