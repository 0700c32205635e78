package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
)

// sizeQueryBuffer makes a query's response buffer start at the size the
// same operation text needed last time (responseSizeOf in
// graph/generated/marshal_sequential.go) instead of empty.
var (
	queryBuffer = []byte(`			var buf bytes.Buffer
			data.MarshalGQL(&buf)
			response.Data = buf.Bytes()
`)
	sizedQueryBuffer = []byte(`			size := responseSizeOf(opCtx.RawQuery)
			buf := size.buffer()
			data.MarshalGQL(buf)
			response.Data = buf.Bytes()
			size.remember(buf.Len())
`)
)

func sizeQueryBuffer(dir string) error {
	f := filepath.Join(dir, "root_.generated.go")
	src, err := os.ReadFile(f)
	if err != nil {
		return err
	}
	if bytes.Count(src, queryBuffer) != 1 {
		return errors.New("found no query response buffer in root_.generated.go: gqlgen's generated code changed shape")
	}
	return os.WriteFile(f, bytes.Replace(src, queryBuffer, sizedQueryBuffer, 1), 0o644)
}
