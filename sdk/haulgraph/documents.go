package haulgraph

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
)

// DocumentService uploads and downloads documents.
type DocumentService struct{ c *Client }

// MaxUploadBytes is the largest document Upload sends (the server's
// default bound).
const MaxUploadBytes = 25 << 20

// UploadDocumentParams is one file (PDF, JPEG, PNG or GIF) to attach to a
// load (ParentID: its load number), a trip, a driver or a carrier (its id).
type UploadDocumentParams struct {
	Parent       DocumentParent
	ParentID     string
	DocumentType string // e.g. "BOL", "POD"
	FileName     string
	File         io.Reader
}

// Upload sends the document. The file is read into memory (at most
// MaxUploadBytes) so that a refused request can be sent again.
func (s *DocumentService) Upload(ctx context.Context, p *UploadDocumentParams) (*Document, error) {
	if p == nil || p.File == nil || p.Parent == "" || p.ParentID == "" {
		return nil, errors.New("haulgraph: UploadDocumentParams needs Parent, ParentID and File")
	}
	data, err := io.ReadAll(io.LimitReader(p.File, MaxUploadBytes+1))
	if err != nil {
		return nil, fmt.Errorf("haulgraph: reading the document: %w", err)
	}
	if len(data) > MaxUploadBytes {
		return nil, fmt.Errorf("haulgraph: the document is larger than %d bytes", MaxUploadBytes)
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if err := mw.WriteField("DocumentType", p.DocumentType); err != nil {
		return nil, err
	}
	part, err := mw.CreateFormFile("File", p.FileName)
	if err != nil {
		return nil, err
	}
	if _, err := part.Write(data); err != nil {
		return nil, err
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	var d Document
	meta, err := s.c.do(ctx, request{method: http.MethodPost, path: s.c.restPath(string(p.Parent) + "/" + url.PathEscape(p.ParentID) + "/document"),
		body: buf.Bytes(), ctype: mw.FormDataContentType()}, &d)
	if err != nil {
		return nil, err
	}
	d.LastResponse = meta
	return &d, nil
}

// Download is a document's bytes as they stream; close it.
type Download struct {
	io.ReadCloser
	ContentType        string
	ContentDisposition string
	APIResource
}

// Download fetches a signed download link (GraphQL's
// Document.downloadUrl); the signature is the credential, no token is sent.
func (s *DocumentService) Download(ctx context.Context, signedURL string) (*Download, error) {
	res, meta, release, err := s.c.send(ctx, request{method: http.MethodGet, path: signedURL, accept: "*/*", idempotent: true, stream: true, noAuth: true})
	if err != nil {
		return nil, err
	}
	d := &Download{ReadCloser: &cancelOnClose{ReadCloser: res.Body, release: release},
		ContentType: res.Header.Get("Content-Type"), ContentDisposition: res.Header.Get("Content-Disposition")}
	d.LastResponse = meta
	return d, nil
}
