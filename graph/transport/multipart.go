package transport

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/graph/operation"
)

// readMultipart reads a GraphQL multipart request (operations, map, then the
// files) into parameters with each file in place of its null variable. Files
// go to temporary files (memory stays bounded); cleanup removes them. Every
// error is the client's: the framing is malformed, the map names a path twice
// (two files for one upload) or a path that holds no null, or a file is
// missing or unexpected. gqlgen's own reader answered some of these with an
// uncoded 200, took the last of two files for one upload, and panicked on a
// path through a value of the wrong shape.
func readMultipart(r *http.Request) (p *graphql.RawParams, cleanup func(), err error) {
	var temps []*os.File
	cleanup = func() {
		for _, f := range temps {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, cleanup, bad("the body must be multipart/form-data with a boundary")
	}
	p = &graphql.RawParams{Headers: r.Header}
	if err := readJSONPart(mr, "operations", p); err != nil {
		return nil, cleanup, err
	}
	if p.Query == "" && p.Extensions["persistedQuery"] == nil {
		return nil, cleanup, bad("operations: the query is required")
	}
	var fileMap map[string][]string
	if err := readJSONPart(mr, "map", &fileMap); err != nil {
		return nil, cleanup, err
	}
	if len(fileMap) == 0 {
		return nil, cleanup, bad("map: no file is mapped; send an operation without files as application/json")
	}
	bound := map[string]string{} // path → file key
	for key, paths := range fileMap {
		if len(paths) == 0 {
			return nil, cleanup, bad("map: file %q is bound to no variable", key)
		}
		for _, path := range paths {
			if other, dup := bound[path]; dup {
				return nil, cleanup, bad("map: %s is bound to more than one file (%q and %q); send one file per upload", path, other, key)
			}
			bound[path] = key
		}
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, cleanup, malformedPart(err)
		}
		key := part.FormName()
		paths, ok := fileMap[key]
		if !ok {
			return nil, cleanup, bad("part %q is not named in the map (or sent twice)", key)
		}
		delete(fileMap, key)
		f, err := os.CreateTemp("", "haulgraph-upload-")
		if err != nil {
			return nil, cleanup, err
		}
		temps = append(temps, f)
		size, err := io.Copy(f, part)
		if err != nil {
			return nil, cleanup, malformedPart(err)
		}
		for _, path := range paths {
			rd, err := os.Open(f.Name())
			if err != nil {
				return nil, cleanup, err
			}
			temps = append(temps, rd)
			up := graphql.Upload{File: rd, Filename: part.FileName(), Size: size, ContentType: part.Header.Get("Content-Type")}
			if err := setUpload(p.Variables, path, up); err != nil {
				return nil, cleanup, bad("map: %s: %v", path, err)
			}
		}
	}
	for key := range fileMap {
		return nil, cleanup, bad("file %q named in the map was not sent", key)
	}
	return p, cleanup, nil
}

// badMultipart is the client's error (400 BAD_USER_INPUT).
type badMultipart struct{ msg string }

func (b badMultipart) Error() string { return b.msg }

func bad(format string, args ...any) error { return badMultipart{fmt.Sprintf(format, args...)} }

// malformedPart classifies a failure of the multipart framing: the client's,
// unless the body passed its bound (413).
func malformedPart(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return err
	}
	return bad("the multipart body is malformed: %v", err)
}

func readJSONPart(mr *multipart.Reader, name string, dst any) error {
	part, err := mr.NextPart()
	if err != nil {
		if err == io.EOF {
			return bad("the %s part is missing", name)
		}
		return malformedPart(err)
	}
	if part.FormName() != name {
		return bad("the parts must come in the order operations, map, files: found %q where %s belongs", part.FormName(), name)
	}
	b, err := io.ReadAll(part)
	if err != nil {
		return malformedPart(err)
	}
	if name == "map" {
		err = json.Unmarshal(b, dst)
	} else {
		err = decodeJSONObject(b, dst)
	}
	if err != nil {
		return bad("the %s part is not valid JSON of the right shape: %v", name, err)
	}
	return nil
}

// setUpload puts up where path ("variables.file", "variables.files.1",
// "variables.input.file") holds null, checking every step's shape.
func setUpload(vars map[string]any, path string, up graphql.Upload) error {
	rest, ok := strings.CutPrefix(path, "variables.")
	if !ok {
		return errors.New(`a path must start with "variables."`)
	}
	steps := strings.Split(rest, ".")
	var node any = vars
	for i, step := range steps {
		last := i == len(steps)-1
		switch n := node.(type) {
		case map[string]any:
			v, ok := n[step]
			if !ok {
				return fmt.Errorf("no variable or field %q", step)
			}
			if last {
				if v != nil {
					return errors.New("the value there must be null")
				}
				n[step] = up
				return nil
			}
			node = v
		case []any:
			idx, err := strconv.Atoi(step)
			if err != nil || idx < 0 || idx >= len(n) {
				return fmt.Errorf("%q is not an index of the list", step)
			}
			if last {
				if n[idx] != nil {
					return errors.New("the value there must be null")
				}
				n[idx] = up
				return nil
			}
			node = n[idx]
		default:
			return fmt.Errorf("%q goes through a value that is neither an object nor a list", step)
		}
	}
	return errors.New("the path is empty")
}

// isBadMultipart reports an error readMultipart blames on the client.
func isBadMultipart(err error) bool {
	var b badMultipart
	return errors.As(err, &b)
}

// refuseUpload answers a multipart request readMultipart refused.
func refuseUpload(w http.ResponseWriter, r *http.Request, err error) {
	writeRefusal(w, r, http.StatusBadRequest, operation.Coded(domain.CodeInvalid, "%s", err.Error()))
}
