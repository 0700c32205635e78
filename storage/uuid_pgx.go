package storage

import (
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
)

// registerUUID teaches a type map github.com/google/uuid's UUID: pgx knows
// it only as a driver.Valuer and sql.Scanner, so every id argument went
// through its 36-character string (and a failed binary plan first, whose
// error was built and dropped) and every id read came back as a string to
// parse: a tenth of the allocations of a statement page. As
// jackc/pgx-google-uuid does, a UUID is handed to pgx's own uuid codec as
// the 16 bytes it is.
func registerUUID(m *pgtype.Map) {
	t := &pgtype.Type{Name: "uuid", OID: pgtype.UUIDOID, Codec: uuidCodec{}}
	m.RegisterType(t)
	m.RegisterType(&pgtype.Type{Name: "_uuid", OID: pgtype.UUIDArrayOID, Codec: &pgtype.ArrayCodec{ElementType: t}})
}

// uuidCodec is pgx's uuid codec that also plans for uuid.UUID (which it
// would otherwise reach through its sql.Scanner and driver.Valuer, as text).
type uuidCodec struct{ pgtype.UUIDCodec }

func (c uuidCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if _, ok := value.(uuid.UUID); ok {
		if next := c.UUIDCodec.PlanEncode(m, oid, format, pgUUID{}); next != nil {
			return uuidEncodePlan{next}
		}
	}
	return c.UUIDCodec.PlanEncode(m, oid, format, value)
}

func (c uuidCodec) PlanScan(m *pgtype.Map, oid uint32, format int16, target any) pgtype.ScanPlan {
	if _, ok := target.(*uuid.UUID); ok {
		if next := c.UUIDCodec.PlanScan(m, oid, format, (*pgUUID)(nil)); next != nil {
			return uuidScanPlan{next}
		}
	}
	return c.UUIDCodec.PlanScan(m, oid, format, target)
}

// pgUUID is uuid.UUID as pgx's uuid codec reads and writes it.
type pgUUID uuid.UUID

func (u pgUUID) UUIDValue() (pgtype.UUID, error) { return pgtype.UUID{Bytes: u, Valid: true}, nil }

func (u *pgUUID) ScanUUID(v pgtype.UUID) error {
	if !v.Valid {
		return errors.New("cannot scan NULL into *uuid.UUID")
	}
	*u = v.Bytes
	return nil
}

type uuidEncodePlan struct{ next pgtype.EncodePlan }

func (p uuidEncodePlan) Encode(value any, buf []byte) ([]byte, error) {
	return p.next.Encode(pgUUID(value.(uuid.UUID)), buf)
}

type uuidScanPlan struct{ next pgtype.ScanPlan }

func (p uuidScanPlan) Scan(src []byte, dst any) error {
	return p.next.Scan(src, (*pgUUID)(dst.(*uuid.UUID)))
}
