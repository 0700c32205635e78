package rest

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/httpedge"
)

// Media types of the export.
const (
	csvType    = "text/csv"
	ndjsonType = "application/x-ndjson"
)

// exportRetryAfter is the Retry-After (seconds) of a refused export: one
// running export has to finish first.
const exportRetryAfter = 10

func exportRoutes(e *reads.Exports) []Route {
	h := &exportHandler{exports: e}
	return []Route{{Method: http.MethodGet, Path: "/driver-settlement-statements/export", Handle: h.statements,
		Produces: []string{csvType, ndjsonType}}}
}

type exportHandler struct{ exports *reads.Exports }

// GET /driver-settlement-statements/export?start=&end=&format=csv|ndjson
// [&driverType=&driverId=&bom=true&raw=true]: every Processed and Failed statement of
// the range, streamed as it is read (docs/exports.md).
func (h *exportHandler) statements(w http.ResponseWriter, r *http.Request) error {
	qs := r.URL.Query()
	in := reads.StatementExportInput{Start: queryParam(qs, "start"), End: queryParam(qs, "end"),
		Format: queryParam(qs, "format"), DriverType: queryParam(qs, "driverType"), DriverID: queryParam(qs, "driverId")}
	q, err := h.exports.PrepareStatements(r.Context(), in)
	if err != nil {
		return err
	}
	var f fields
	bom, raw := f.Bool("bom", queryParam(qs, "bom")), f.Bool("raw", queryParam(qs, "raw"))
	if err := f.Err(); err != nil {
		return err
	}
	if bom && q.Format != reads.ExportCSV {
		return domain.FieldError("bom", "bom=true is only allowed with format=csv")
	}
	if raw && q.Format != reads.ExportCSV {
		return domain.FieldError("raw", "raw=true is only allowed with format=csv")
	}
	out := &exportStream{w: w, r: r, format: q.Format, bom: bom, raw: raw,
		name: "settlement-statements_" + q.From.String() + "_" + q.To.String() + "." + string(q.Format)}
	err = h.exports.StreamStatements(r.Context(), q, out.statement)
	if err == nil {
		err = out.finish()
	}
	if err != nil {
		if !out.started {
			if errors.Is(err, reads.TooManyExports) {
				httpedge.RetryAfter(w.Header(), exportRetryAfter)
			}
			if r.Context().Err() != nil {
				return nil // nobody to answer
			}
			return err
		}
		// Headers and rows are out: a problem document cannot follow. End
		// the response without its final chunk so the client sees a
		// truncated transfer, never a short file that looks whole.
		if r.Context().Err() == nil {
			slog.ErrorContext(r.Context(), "export failed mid-stream", "err", err, "trace_id", domain.TraceIDFrom(r.Context()))
		}
		panic(http.ErrAbortHandler)
	}
	return nil
}

// exportStream writes the response lazily: headers with the first row (or
// at the end of an empty export), so a refusal before any row is still a
// problem document.
type exportStream struct {
	w       http.ResponseWriter
	r       *http.Request
	format  reads.ExportFormat
	bom     bool
	raw     bool // CSV cells as stored, not neutralised for spreadsheets
	name    string
	started bool
	rows    int

	zw  *gzip.Writer
	buf *bufio.Writer
	csv *csvRows
	enc *json.Encoder
}

// exportBuffer is the write buffer in front of the (compressed) response.
const exportBuffer = 64 << 10

func (s *exportStream) start() error {
	s.started = true
	h := s.w.Header()
	switch s.format {
	case reads.ExportNDJSON:
		h.Set("Content-Type", ndjsonType)
	default:
		h.Set("Content-Type", csvType+"; charset=utf-8; header=present")
	}
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": s.name}))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Add("Vary", "Accept-Encoding")
	var sink io.Writer = s.w
	if acceptsGzip(s.r.Header.Get("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		s.zw, _ = gzip.NewWriterLevel(s.w, gzip.BestSpeed)
		sink = s.zw
	}
	s.w.WriteHeader(http.StatusOK)
	s.buf = bufio.NewWriterSize(sink, exportBuffer)
	if s.format == reads.ExportNDJSON {
		s.enc = json.NewEncoder(s.buf)
		return nil
	}
	if s.bom {
		if _, err := s.buf.WriteString("\uFEFF"); err != nil {
			return err
		}
	}
	s.csv = newCSVRows(s.buf, s.raw)
	return s.csv.header()
}

// statement writes one statement: an NDJSON line (the search item's JSON)
// or its CSV rows.
func (s *exportStream) statement(st *reads.Statement) error {
	if !s.started {
		if err := s.start(); err != nil {
			return err
		}
	}
	var err error
	if s.enc != nil {
		err = s.enc.Encode(st) // as WriteJSON encodes search items
	} else {
		err = s.csv.statement(st)
	}
	if err != nil {
		return err
	}
	s.rows++
	if s.rows == 1 {
		return s.flush() // the first byte leaves at once
	}
	return nil
}

func (s *exportStream) flush() error {
	if err := s.buf.Flush(); err != nil {
		return err
	}
	if s.zw != nil {
		if err := s.zw.Flush(); err != nil {
			return err
		}
	}
	return http.NewResponseController(s.w).Flush()
}

// finish ends a complete export (an empty one is the CSV header alone).
func (s *exportStream) finish() error {
	if !s.started {
		if err := s.start(); err != nil {
			return err
		}
	}
	if err := s.buf.Flush(); err != nil {
		return err
	}
	if s.zw != nil {
		return s.zw.Close()
	}
	return nil
}

// acceptsGzip reports whether Accept-Encoding admits gzip (RFC 9110 12.5.3).
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		if coding != "gzip" && coding != "x-gzip" && coding != "*" {
			continue
		}
		if k, v, ok := strings.Cut(strings.TrimSpace(params), "="); ok && strings.TrimSpace(k) == "q" {
			if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && f <= 0 {
				continue
			}
		}
		return true
	}
	return false
}
