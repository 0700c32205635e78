package documents

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/haulgraph/haulgraph/domain"
)

// Parent is the resolved owner of an upload.
type Parent struct {
	Type     domain.DocumentParentType
	PublicID string    // ParentId of the record: load number, trip/driver/carrier id
	UUID     uuid.UUID // the parent row's id
	// LoadID is the load the document changes (load and trip uploads), so the
	// store can emit load.changed in the same transaction.
	LoadID *uuid.UUID
}

// Store is the documents' storage port.
type Store interface {
	// Parent resolves a parent of the tenant; NOT_FOUND when unknown,
	// of another tenant, or (loads) without trips.
	DocumentParent(ctx context.Context, tenantID uuid.UUID, t domain.DocumentParentType, publicID string) (Parent, error)
	// InsertDocument records d under p (and emits the load's change).
	InsertDocument(ctx context.Context, tenantID uuid.UUID, p Parent, d domain.Document) error
	// Document reads one document of the tenant; NOT_FOUND when absent.
	Document(ctx context.Context, tenantID, id uuid.UUID) (domain.Document, error)
	// DocumentsOf reads the newest documents (at most limit each) of many
	// parents of one type in one query, keyed by parent UUID.
	DocumentsOf(ctx context.Context, tenantID uuid.UUID, t domain.DocumentParentType, parents []uuid.UUID, limit int) (map[uuid.UUID][]domain.Document, error)
}

// BlobStore is the port to the document bytes.
type BlobStore interface {
	// Write stores r under key. When r fails, nothing is left under key.
	Write(ctx context.Context, key, contentType string, r io.Reader) error
	Open(ctx context.Context, key string) (io.ReadCloser, error)
	Delete(ctx context.Context, key string) error
}

// Service is the document service: uploads for REST and GraphQL alike,
// reads and signed download links.
type Service struct {
	Store Store
	Blobs BlobStore
	Links *LinkSigner
	// MaxBytes overrides DefaultMaxBytes per target.
	MaxBytes map[domain.DocumentParentType]int64
	// Now is the clock (tests replace it).
	Now func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// MaxBytesFor is the size limit of the target's files.
func (s *Service) MaxBytesFor(t domain.DocumentParentType) int64 {
	if n := s.MaxBytes[t]; n > 0 {
		return n
	}
	return DefaultMaxBytes
}

// MaxFileBytes is the largest limit of any target (the transport's bound).
func (s *Service) MaxFileBytes() int64 {
	var max int64
	for t := range Targets {
		max = maxInt64(max, s.MaxBytesFor(t))
	}
	return max
}

func maxInt64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// Upload is one upload in progress. Its parts may arrive in any order
// (multipart does not fix the order of form fields): a DocumentType is
// checked as soon as it is known; when it comes after the file, the stored
// bytes are deleted again if it is refused. Always defer Abort.
type Upload struct {
	svc      *Service
	tenantID uuid.UUID
	target   *Target
	parent   Parent

	docType            string
	docTypeGiven       bool
	fileName, partName string
	hasFileName        bool
	fileNameGiven      bool
	files              int
	key, contentType   string
	size               int64
	done               bool
}

// BeginUpload authorizes the caller for the target and resolves the parent.
func (s *Service) BeginUpload(ctx context.Context, t domain.DocumentParentType, parentID string) (*Upload, error) {
	target := Targets[t]
	if target == nil {
		return nil, fmt.Errorf("documents: unknown target %q", t)
	}
	p, err := domain.Authorize(ctx, target.Op)
	if err != nil {
		return nil, err
	}
	// The parent is a load number or a canonical UUID; anything else is a
	// 400 naming it, not a search.
	if t == domain.ParentLoad {
		if _, err := domain.ValidLoadNumber(parentID); err != nil {
			return nil, err
		}
	} else if _, err := domain.ParseUUID(parentID); err != nil {
		return nil, domain.FieldError("id", "id "+err.Error())
	}
	parent, err := s.Store.DocumentParent(ctx, p.TenantID, t, parentID)
	if err != nil {
		return nil, err
	}
	return &Upload{svc: s, tenantID: p.TenantID, target: target, parent: parent}, nil
}

// MaxBytes is the upload's file size limit.
func (u *Upload) MaxBytes() int64 { return u.svc.MaxBytesFor(u.target.Parent) }

// SetDocumentType checks and records the DocumentType field.
func (u *Upload) SetDocumentType(v string) error {
	if u.docTypeGiven {
		return domain.FieldError("DocumentType", "DocumentType is given more than once")
	}
	u.docTypeGiven = true
	t, err := u.target.CheckDocumentType(v)
	if err != nil {
		return err
	}
	u.docType = t
	return nil
}

// SetFileName records the optional FileName field (an empty value counts as
// omitted); given twice it is refused like DocumentType.
func (u *Upload) SetFileName(v string) error {
	if u.fileNameGiven {
		return domain.FieldError("FileName", "FileName is given more than once")
	}
	u.fileNameGiven = true
	if strings.TrimSpace(v) != "" {
		u.fileName, u.hasFileName = v, true
	}
	return nil
}

// errTooLarge marks the limit reader's refusal.
var errTooLarge = errors.New("documents: file exceeds the size limit")

// WriteFile streams the one file of the upload into blob storage under a
// server-generated key, judging its type by its first bytes and refusing it
// as soon as it passes the size limit: nothing is buffered beyond SniffLen.
func (u *Upload) WriteFile(ctx context.Context, partName string, r io.Reader) error {
	u.files++
	if u.files > 1 {
		return domain.FieldError("File", "exactly one file per upload: the request carries more than one")
	}
	u.partName = partName
	br := bufio.NewReaderSize(r, SniffLen)
	head, err := br.Peek(SniffLen)
	if len(head) == 0 {
		if err != nil && err != io.EOF {
			return err
		}
		return domain.FieldError("File", "the file is empty")
	}
	ct := Sniff(head)
	if ct == "" {
		return &domain.Error{Code: domain.CodeUnsupportedType, Message: "the file is not a PDF, JPEG, PNG or GIF (judged by its content, not its name or declared type)"}
	}
	max := u.MaxBytes()
	key := u.tenantID.String() + "/" + uuid.NewString()
	lr := &limitReader{r: br, left: max}
	if err := u.svc.Blobs.Write(ctx, key, ct, lr); err != nil {
		if errors.Is(err, errTooLarge) {
			return TooLarge(u.target.Parent, max)
		}
		return err
	}
	u.key, u.contentType, u.size = key, ct, max-lr.left
	return nil
}

// TooLarge is the 413 of a file over the target's limit.
func TooLarge(t domain.DocumentParentType, max int64) error {
	limit := fmt.Sprintf("%d bytes", max)
	if max >= 1<<20 && max%(1<<20) == 0 {
		limit += fmt.Sprintf(" (%d MB)", max>>20)
	}
	return &domain.Error{Code: domain.CodeTooLarge, Message: fmt.Sprintf("the file exceeds the limit of %s for %s documents", limit, strings.ToLower(string(t)))}
}

// Target is the upload's target.
func (u *Upload) Target() domain.DocumentParentType { return u.target.Parent }

// Finish checks that the upload is complete and records it. On any error the
// stored bytes are removed (by Abort), so neither half is visible alone.
func (u *Upload) Finish(ctx context.Context) (domain.Document, error) {
	var v domain.Validation
	if u.files == 0 {
		v.Add("File", "File is required: exactly one file per upload")
	}
	if !u.docTypeGiven {
		v.Add("DocumentType", "DocumentType is required; allowed: "+strings.Join(u.target.Allowed(), ", "))
	}
	if err := v.Err(); err != nil {
		return domain.Document{}, err
	}
	name := u.partName
	if u.hasFileName {
		name = u.fileName
	}
	at := u.svc.now().Truncate(time.Millisecond)
	d := domain.Document{
		ID:             uuid.New(),
		AttachmentPath: AttachmentPath(name, u.contentType, at),
		AttachmentType: u.docType,
		AttachmentSize: u.size,
		UploadedAt:     at,
		ParentID:       u.parent.PublicID,
		ParentType:     u.parent.Type,
		ContentType:    u.contentType,
		BlobKey:        u.key,
	}
	if err := u.svc.Store.InsertDocument(ctx, u.tenantID, u.parent, d); err != nil {
		return domain.Document{}, err
	}
	u.done = true
	return d, nil
}

// UploadFile is one whole upload when all fields are at hand (GraphQL):
// the DocumentType is checked before a byte of the file is stored.
func (s *Service) UploadFile(ctx context.Context, t domain.DocumentParentType, parentID, documentType string, fileName *string, partName string, r io.Reader) (domain.Document, error) {
	up, err := s.BeginUpload(ctx, t, parentID)
	if err != nil {
		return domain.Document{}, err
	}
	defer up.Abort(context.WithoutCancel(ctx))
	if err := up.SetDocumentType(documentType); err != nil {
		return domain.Document{}, err
	}
	if fileName != nil {
		_ = up.SetFileName(*fileName) // the first call: never refused
	}
	if err := up.WriteFile(ctx, partName, r); err != nil {
		return domain.Document{}, err
	}
	return up.Finish(ctx)
}

// Abort removes the stored bytes of an upload that did not finish.
func (u *Upload) Abort(ctx context.Context) {
	if u.done || u.key == "" {
		return
	}
	_ = u.svc.Blobs.Delete(ctx, u.key)
	u.key = ""
}

// limitReader passes at most left bytes and fails with errTooLarge on more.
type limitReader struct {
	r    io.Reader
	left int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return 0, errTooLarge
	}
	return n, err
}
