package documents

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/haulgraph/haulgraph/domain"
)

// DownloadLinkTTL is how long a signed document link works.
const DownloadLinkTTL = 10 * time.Minute

// LinkSigner signs and checks document download links: an HMAC-SHA256 over
// the document id, its tenant and the expiry, so a link opens exactly one
// document until it expires, without a bearer token.
type LinkSigner struct {
	key  []byte
	base string // the server's public URL
}

// NewLinkSigner signs links with key, a key of this purpose only (the app
// derives it from the master key: secretbox.Derive with LinksLabel).
func NewLinkSigner(key []byte, publicURL string) *LinkSigner {
	return &LinkSigner{key: key, base: publicURL}
}

func (l *LinkSigner) sign(id, tenantID uuid.UUID, expires int64) string {
	m := hmac.New(sha256.New, l.key)
	m.Write([]byte(id.String() + "\n" + tenantID.String() + "\n" + strconv.FormatInt(expires, 10)))
	return hex.EncodeToString(m.Sum(nil))
}

// DownloadURL is a signed link to d's bytes, valid for DownloadLinkTTL.
func (s *Service) DownloadURL(tenantID uuid.UUID, d domain.Document) string {
	exp := s.now().Add(DownloadLinkTTL).Unix()
	q := url.Values{}
	q.Set("tenant", tenantID.String())
	q.Set("expires", strconv.FormatInt(exp, 10))
	q.Set("sig", s.Links.sign(d.ID, tenantID, exp))
	return s.Links.base + "/api/p/documents/" + d.ID.String() + "/content?" + q.Encode()
}

// OpenSigned checks a download link's signature and expiry and opens the
// document's bytes. A bad signature and an unknown document answer alike.
func (s *Service) OpenSigned(ctx context.Context, id string, q url.Values) (domain.Document, io.ReadCloser, error) {
	refused := &domain.Error{Code: domain.CodeForbidden, Message: "the download link is invalid; request a new downloadUrl"}
	docID, err1 := uuid.Parse(id)
	tenantID, err2 := uuid.Parse(q.Get("tenant"))
	exp, err3 := strconv.ParseInt(q.Get("expires"), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return domain.Document{}, nil, refused
	}
	want := s.Links.sign(docID, tenantID, exp)
	if !hmac.Equal([]byte(want), []byte(q.Get("sig"))) {
		return domain.Document{}, nil, refused
	}
	if !s.now().Before(time.Unix(exp, 0)) {
		return domain.Document{}, nil, &domain.Error{Code: domain.CodeForbidden, Message: "the download link has expired; request a new downloadUrl"}
	}
	d, err := s.Store.Document(ctx, tenantID, docID)
	if err != nil {
		return domain.Document{}, nil, err
	}
	rc, err := s.Blobs.Open(ctx, d.BlobKey)
	if err != nil {
		return domain.Document{}, nil, err
	}
	return d, rc, nil
}

// DocumentsOf reads the documents of parents (one query), for the caller's
// tenant. The caller has already been authorized to read the parents.
func (s *Service) DocumentsOf(ctx context.Context, t domain.DocumentParentType, parents []uuid.UUID, limit int) (map[uuid.UUID][]domain.Document, error) {
	p, err := domain.Authenticated(ctx)
	if err != nil {
		return nil, err
	}
	if limit <= 0 || limit > domain.MaxPageSize {
		return nil, domain.FieldError("first", fmt.Sprintf("first must be between 1 and %d", domain.MaxPageSize))
	}
	return s.Store.DocumentsOf(ctx, p.TenantID, t, parents, limit)
}
