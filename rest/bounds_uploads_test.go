package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/domain/documents"
)

// uploadProbe is one multipart upload the property test sends: the
// operation's valid upload with one input changed, and whether the served
// document admits it.
type uploadProbe struct {
	path   string
	parts  []part
	field  string
	note   string
	valid  bool
	why    string
	parent string // the parent the path names
	op     *openapi3.Operation
}

// The multipart uploads agree with the served document as the JSON
// operations do (TestDocumentAndServerAgreeOnBounds): for every
// multipart/form-data operation under /api/p/v1, its path parameter and
// each form field of its schema in turn (DocumentType, FileName, File)
// take boundary values derived from the document (lengths at and past
// the bounds in multi-byte characters, the document's patterns, absent,
// given twice) while the rest stays a valid upload. The document alone
// decides which are valid; the server must accept exactly those (2xx, or
// 404/409 for a parent that is missing or full) and refuse the others
// with 400/413/415 problem+json naming the field, each answer a status the
// operation declares; a valid upload to a full parent is that 409.
func TestUploadsAgreeWithDocumentOnBounds(t *testing.T) {
	t.Parallel()
	e := startUploads(t)
	doc, err := openapi3.NewLoader().LoadFromData(servedDocument(t))
	if err != nil {
		t.Fatal(err)
	}
	who := e.token(e.a, allUploadScopes)
	parents := map[string]string{"loadNumber": e.a.loadNumber, "tripId": e.a.tripID.String(),
		"driverId": e.a.driverID.String(), "carrierId": e.a.carrierID.String()}
	rng := rand.New(rand.NewPCG(boundsSeed, 1))
	var probes []uploadProbe
	paths := doc.Paths.InMatchingOrder()
	sort.Strings(paths)
	ops := 0
	var uploadPaths []string
	for _, path := range paths {
		op := doc.Paths.Value(path).Post
		if !strings.HasPrefix(path, "/api/p/v1/") || op == nil || op.RequestBody == nil || op.RequestBody.Value.Content["multipart/form-data"] == nil {
			continue
		}
		ops++
		uploadPaths = append(uploadPaths, path)
		probes = append(probes, uploadProbes(t, rng, path, op, parents)...)
	}
	if ops != 4 || len(probes) < 60 {
		t.Fatalf("%d multipart operations, %d probes: the document's uploads were not walked", ops, len(probes))
	}
	counts := map[bool]int{}
	for _, p := range probes {
		counts[p.valid]++
		if msg := sendUpload(e, who, p); msg != "" {
			t.Errorf("POST %s (%s = %s): %s", p.path, p.field, p.note, msg)
		}
	}
	t.Logf("%d probes over %d multipart operations: %d valid, %d invalid (seed %d)", len(probes), ops, counts[true], counts[false], boundsSeed)

	// A parent that already holds documents.MaxPerParent documents: a valid
	// upload to it is a 409, which each operation must declare.
	full := map[string]string{"loadNumber": e.b.loadNumber, "tripId": e.b.tripID.String(),
		"driverId": e.b.driverID.String(), "carrierId": e.b.carrierID.String()}
	fillParents(t, e, e.b)
	whoB := e.token(e.b, allUploadScopes)
	for _, path := range uploadPaths {
		p := uploadProbes(t, rng, path, doc.Paths.Value(path).Post, full)
		valid := p[slices.IndexFunc(p, func(p uploadProbe) bool { return p.field == "File" && p.note == "a PDF" })]
		valid.note = "a full parent"
		if msg := sendUpload(e, whoB, valid); msg != "" {
			t.Errorf("POST %s (a full parent): %s", valid.path, msg)
		}
		if status, body, _ := e.post(valid.path, whoB, valid.parts...); status != http.StatusConflict {
			t.Errorf("POST %s to a full parent: %d %v, want 409", valid.path, status, body)
		}
	}
}

// fillParents writes documents.MaxPerParent documents to each of f's
// parents (load, trip, driver, carrier) directly.
func fillParents(t *testing.T, e *uploadEnv, f tenantFixture) {
	t.Helper()
	parents := []struct {
		typ, id string
		uuid    uuid.UUID
	}{{"Load", f.loadNumber, f.loadID}, {"Trip", f.tripID.String(), f.tripID}, {"Driver", f.driverID.String(), f.driverID}, {"Carrier", f.carrierID.String(), f.carrierID}}
	err := e.app.DB.InSystem(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		for _, p := range parents {
			if _, err := tx.ExecContext(ctx, `INSERT INTO documents (id, tenant_id, parent_type, parent_id, parent_uuid, attachment_path,
				attachment_type, attachment_size, content_type, blob_key, uploaded_at)
				SELECT gen_random_uuid(), ?, ?, ?, ?, 'a.pdf', 'Other Documents', 10, 'application/pdf', 'missing/' || n, now()
				FROM generate_series(1, ?) AS n`, f.tenantID, p.typ, p.id, p.uuid, documents.MaxPerParent); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// uploadProbes derives the probes of one upload operation from its
// parameters and its form schema. A valid upload is the schema's example
// values (the document's example of each field) with a PDF as the file.
func uploadProbes(t *testing.T, rng *rand.Rand, path string, op *openapi3.Operation, parents map[string]string) []uploadProbe {
	t.Helper()
	schema := op.RequestBody.Value.Content["multipart/form-data"].Schema.Value
	prm := op.Parameters[0].Value
	parent := parents[prm.Name]
	if parent == "" || prm.In != "path" {
		t.Fatalf("%s: parameter %s is no parent this test knows", path, prm.Name)
	}
	base := map[string][]string{}
	for _, name := range slices.Sorted(maps.Keys(schema.Properties)) {
		if name == "File" {
			continue
		}
		ex := schema.Properties[name].Value.Example
		if ex == nil {
			if slices.Contains(schema.Required, name) {
				t.Fatalf("%s: form field %s has no example", path, name)
			}
			continue
		}
		base[name] = []string{fmt.Sprint(ex)}
	}
	build := func(parentValue string, fields map[string][]string, file []byte, withFile bool) uploadProbe {
		p := uploadProbe{path: strings.ReplaceAll(path, "{"+prm.Name+"}", url.PathEscape(parentValue)), parent: parentValue, op: op}
		for _, name := range slices.Sorted(maps.Keys(fields)) {
			for _, v := range fields[name] {
				p.parts = append(p.parts, fieldP(name, v))
			}
		}
		if withFile {
			p.parts = append(p.parts, fileP("scan.pdf", file))
		}
		return p
	}
	var out []uploadProbe
	// The path parameter.
	for _, c := range textCandidates(rng, prm.Schema.Value, prm.Name, parent) {
		if c.values == nil || c.values[0] == "" {
			continue // no value: another route's path
		}
		p := build(c.values[0], base, pdfBytes, true)
		p.field, p.note = prm.Name, c.note
		p.valid, p.why = textValid(prm.Schema.Value, c.values)
		out = append(out, p)
	}
	// Each text field.
	for _, name := range slices.Sorted(maps.Keys(schema.Properties)) {
		s := schema.Properties[name].Value
		if name == "File" {
			continue
		}
		for _, c := range textCandidates(rng, s, name, orNil(base[name])) {
			fields := map[string][]string{}
			for k, v := range base {
				fields[k] = v
			}
			if c.values == nil {
				delete(fields, name)
			} else {
				fields[name] = c.values
			}
			p := build(parent, fields, pdfBytes, true)
			p.field, p.note = name, c.note
			if c.values == nil {
				p.valid, p.why = !slices.Contains(schema.Required, name), "required"
			} else {
				p.valid, p.why = textValid(s, c.values)
			}
			out = append(out, p)
		}
		twice := map[string][]string{}
		for k, v := range base {
			twice[k] = v
		}
		if v := base[name]; v != nil {
			twice[name] = []string{v[0], v[0]}
			p := build(parent, twice, pdfBytes, true)
			p.field, p.note, p.valid, p.why = name, "given twice", false, "a field is one value"
			out = append(out, p)
		}
	}
	// The file: present, absent, empty, and twice.
	file := schema.Properties["File"].Value
	p := build(parent, base, pdfBytes, true)
	p.field, p.note, p.valid = "File", "a PDF", true
	out = append(out, p)
	p = build(parent, base, nil, false)
	p.field, p.note, p.valid, p.why = "File", "absent", !slices.Contains(schema.Required, "File"), "required"
	out = append(out, p)
	p = build(parent, base, []byte{}, true)
	p.field, p.note, p.why = "File", "empty", "minLength"
	p.valid = file.MinLength == 0
	out = append(out, p)
	p = build(parent, base, pdfBytes, true)
	p.parts = append(p.parts, fileP("again.pdf", pdfBytes))
	p.field, p.note, p.valid, p.why = "File", "two files", false, "a field is one value"
	out = append(out, p)
	return out
}

func orNil(v []string) any {
	if v == nil {
		return nil
	}
	return v[0]
}

// sendUpload sends p and returns how the answer breaks the agreement, ""
// if it keeps it.
func sendUpload(e *uploadEnv, who string, p uploadProbe) string {
	body, ct := multipartBody(e.t, p.parts...)
	req, _ := http.NewRequest(http.MethodPost, e.url+p.path, body)
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Authorization", "Bearer "+who)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err.Error()
	}
	answer, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var prob problem
	_ = json.Unmarshal(answer, &prob)
	accepted := res.StatusCode/100 == 2 || res.StatusCode == http.StatusNotFound || res.StatusCode == http.StatusConflict
	refused := res.StatusCode == http.StatusBadRequest || res.StatusCode == http.StatusRequestEntityTooLarge ||
		res.StatusCode == http.StatusUnsupportedMediaType || res.StatusCode == http.StatusUnprocessableEntity
	switch {
	case !declares(p.op, res.StatusCode):
		return fmt.Sprintf("the server answers %d %s, which the document does not declare for %s", res.StatusCode, prob.Detail, p.op.OperationID)
	case p.valid && !accepted:
		return fmt.Sprintf("the document admits it but the server answers %d %s %v", res.StatusCode, prob.Detail, prob.Errors)
	case !p.valid && !refused:
		return fmt.Sprintf("the document refuses it (%s) but the server answers %d", p.why, res.StatusCode)
	case refused && res.Header.Get("Content-Type") != "application/problem+json":
		return "a refusal that is not problem+json"
	case refused && res.StatusCode == http.StatusBadRequest && !namesField(prob.Errors, p.field) && !namesField(prob.Errors, strings.ToLower(p.field)):
		return fmt.Sprintf("the refusal does not name %s: %s %v", p.field, prob.Detail, prob.Errors)
	}
	return ""
}
