package haulgraph

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"
	"net/url"
	"strconv"
)

// Export is a statement export as it streams from the server: read it as
// bytes (io.ReadCloser) or row by row (Statements for NDJSON, Rows for
// CSV). Nothing is held beyond the row being read. A transfer the server
// ends early fails with io.ErrUnexpectedEOF, never a short clean end.
type Export struct {
	io.ReadCloser
	// ContentType is text/csv or application/x-ndjson.
	ContentType string
	// FileName is the server's attachment name.
	FileName string
}

// ExportStatements starts an export; close it when done. Gzip on the wire
// is negotiated and undone by the HTTP client.
func (c *Client) ExportStatements(ctx context.Context, p ExportDriverSettlementStatementsParams) (*Export, error) {
	q := url.Values{"start": {p.Start.String()}, "end": {p.End.String()}}
	accept := "text/csv"
	if p.Format != nil {
		q.Set("format", string(*p.Format))
		if *p.Format == ExportFormatNdjson {
			accept = "application/x-ndjson"
		}
	}
	if p.DriverType != nil {
		q.Set("driverType", string(*p.DriverType))
	}
	if p.DriverId != nil {
		q.Set("driverId", p.DriverId.String())
	}
	if p.Bom != nil {
		q.Set("bom", strconv.FormatBool(*p.Bom))
	}
	if p.Raw != nil {
		q.Set("raw", strconv.FormatBool(*p.Raw))
	}
	res, cancel, err := c.send(ctx, request{method: http.MethodGet, path: c.restPath("driver-settlement-statements/export"),
		query: q, accept: accept, idempotent: true, stream: true})
	if err != nil {
		return nil, err
	}
	e := &Export{ReadCloser: &cancelOnClose{ReadCloser: res.Body, cancel: cancel}, ContentType: res.Header.Get("Content-Type")}
	if cd := res.Header.Get("Content-Disposition"); cd != "" {
		if _, params, err := mime.ParseMediaType(cd); err == nil {
			e.FileName = params["filename"]
		}
	}
	return e, nil
}

// Statements decodes an NDJSON export one line at a time.
func (e *Export) Statements() iter.Seq2[Statement, error] {
	return func(yield func(Statement, error) bool) {
		sc := bufio.NewScanner(e)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			var s Statement
			if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
				yield(Statement{}, fmt.Errorf("haulgraph: export line: %w", err))
				return
			}
			if !yield(s, nil) {
				return
			}
		}
		if err := sc.Err(); err != nil {
			yield(Statement{}, exportErr(err))
		}
	}
}

// Rows reads a CSV export one record at a time; the first is the header.
func (e *Export) Rows() iter.Seq2[[]string, error] {
	return func(yield func([]string, error) bool) {
		r := csv.NewReader(e)
		r.ReuseRecord = false
		for {
			rec, err := r.Read()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(nil, exportErr(err))
				return
			}
			if !yield(rec, nil) {
				return
			}
		}
	}
}

func exportErr(err error) error {
	return fmt.Errorf("haulgraph: the export ended early: %w", err)
}
