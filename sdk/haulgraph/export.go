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
	"time"
)

// StatementExportParams selects what Export streams: statement dates From
// to To (whole days, inclusive), optionally one driver type or driver.
type StatementExportParams struct {
	From, To   time.Time
	Format     ExportFormat // ExportCSV (default) or ExportNDJSON
	DriverType DriverType
	DriverID   string
	// BOM starts a CSV export with a UTF-8 byte order mark (for Excel);
	// Raw leaves cells that start with = + - @ as they are.
	BOM, Raw bool
}

// Export is a statement export as it streams from the server: read it as
// bytes (io.ReadCloser), or one statement (NDJSON) or row (CSV) at a time.
// Nothing is held beyond what is being read. A transfer the server ends
// early fails with an error, never a short clean end. Close it.
type Export struct {
	io.ReadCloser
	// ContentType is text/csv or application/x-ndjson.
	ContentType string
	// FileName is the server's attachment name.
	FileName string
	APIResource
}

// Export starts a statement export. Gzip on the wire is negotiated and
// undone by the HTTP client.
func (s *StatementService) Export(ctx context.Context, p *StatementExportParams) (*Export, error) {
	if p == nil {
		p = &StatementExportParams{}
	}
	q := url.Values{"start": {p.From.Format(time.DateOnly)}, "end": {p.To.Format(time.DateOnly)}}
	accept := "text/csv"
	if p.Format != "" {
		q.Set("format", string(p.Format))
		if p.Format == ExportNDJSON {
			accept = "application/x-ndjson"
		}
	}
	if p.DriverType != "" {
		q.Set("driverType", string(p.DriverType))
	}
	if p.DriverID != "" {
		q.Set("driverId", p.DriverID)
	}
	if p.BOM {
		q.Set("bom", strconv.FormatBool(p.BOM))
	}
	if p.Raw {
		q.Set("raw", strconv.FormatBool(p.Raw))
	}
	res, meta, release, err := s.c.send(ctx, request{method: http.MethodGet, path: s.c.restPath("driver-settlement-statements/export"),
		query: q, accept: accept, idempotent: true, stream: true})
	if err != nil {
		return nil, err
	}
	e := &Export{ReadCloser: &cancelOnClose{ReadCloser: res.Body, release: release}, ContentType: res.Header.Get("Content-Type")}
	e.LastResponse = meta
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
