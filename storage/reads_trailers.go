package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

var trailerKeys = keyset{cols: []string{"t.created_at", "t.id"}, types: []string{"timestamptz", "uuid"}}

const trailerCols = `t.id, t.created_at, t.trailer_num, t.make, t.license_num, t.license_state, t.vin_num,
	t.status, t.subsidiary_id, t.equipment_type, t.equipment_size, t.insurance_company,
	t.insurance_policy_number, t.fleet_id, f.name AS fleet_name, f.invoice_number_prefix AS fleet_prefix,
	t.year, t.license_country, t.plate_expires_at, t.license_expires_at, t.insurance_expires_at,
	t.inspection_expires_at, t.capacity_pallets, t.capacity_weight, t.notes, t.refs`

const trailerFrom = `FROM trailers t LEFT JOIN fleets f ON f.id = t.fleet_id AND f.tenant_id = t.tenant_id
	WHERE t.tenant_id = $1`

type trailerRow struct {
	ID                    uuid.UUID  `db:"id"`
	CreatedAt             time.Time  `db:"created_at"`
	TrailerNum            *string    `db:"trailer_num"`
	Make                  *string    `db:"make"`
	LicenseNum            *string    `db:"license_num"`
	LicenseState          *string    `db:"license_state"`
	VinNum                *string    `db:"vin_num"`
	Status                *string    `db:"status"`
	SubsidiaryID          *uuid.UUID `db:"subsidiary_id"`
	EquipmentType         *string    `db:"equipment_type"`
	EquipmentSize         *string    `db:"equipment_size"`
	InsuranceCompany      *string    `db:"insurance_company"`
	InsurancePolicyNumber *string    `db:"insurance_policy_number"`
	FleetID               *uuid.UUID `db:"fleet_id"`
	FleetName             *string    `db:"fleet_name"`
	FleetPrefix           *string    `db:"fleet_prefix"`
	Year                  *int       `db:"year"`
	LicenseCountry        *string    `db:"license_country"`
	PlateExpiresAt        *time.Time `db:"plate_expires_at"`
	LicenseExpiresAt      *time.Time `db:"license_expires_at"`
	InsuranceExpiresAt    *time.Time `db:"insurance_expires_at"`
	InspectionExpiresAt   *time.Time `db:"inspection_expires_at"`
	CapacityPallets       *int       `db:"capacity_pallets"`
	CapacityWeight        *int       `db:"capacity_weight"`
	Notes                 []byte     `db:"notes"`
	Refs                  []byte     `db:"refs"`
}

func (t trailerRow) trailer() (reads.Trailer, error) {
	date := func(p *time.Time) *domain.Date {
		if p == nil {
			return nil
		}
		d := domain.DateOf(*p)
		return &d
	}
	out := reads.Trailer{
		ID: t.ID, CreatedAt: t.CreatedAt, TrailerNum: t.TrailerNum, Make: t.Make, LicenseNum: t.LicenseNum,
		LicenseState: t.LicenseState, VinNum: t.VinNum, SubsidiaryID: t.SubsidiaryID,
		EquipmentType: t.EquipmentType, EquipmentSize: t.EquipmentSize, InsuranceCompany: t.InsuranceCompany,
		InsurancePolicyNumber: t.InsurancePolicyNumber, Year: t.Year, LicenseCountry: t.LicenseCountry,
		PlateExpiresAt: date(t.PlateExpiresAt), LicenseExpiresAt: date(t.LicenseExpiresAt),
		InsuranceExpiresAt: date(t.InsuranceExpiresAt), InspectionExpiresAt: date(t.InspectionExpiresAt),
	}
	if t.Status != nil {
		s := reads.TrailerStatus(*t.Status)
		out.Status = &s
	}
	if t.FleetID != nil && t.FleetName != nil {
		out.Fleet = &reads.Fleet{ID: *t.FleetID, Name: *t.FleetName}
		if t.FleetPrefix != nil {
			out.Fleet.InvoiceNumberPrefix = *t.FleetPrefix
		}
	}
	if t.CapacityPallets != nil || t.CapacityWeight != nil {
		out.Capacity = &reads.TrailerCapacity{Pallets: t.CapacityPallets, Weight: t.CapacityWeight}
	}
	// Notes and References are stored as JSON arrays of docs/architecture.md's shapes.
	if len(t.Notes) > 0 {
		if err := json.Unmarshal(t.Notes, &out.Notes); err != nil {
			return out, fmt.Errorf("trailer %s notes: %w", t.ID, err)
		}
	}
	if len(t.Refs) > 0 {
		if err := json.Unmarshal(t.Refs, &out.References); err != nil {
			return out, fmt.Errorf("trailer %s references: %w", t.ID, err)
		}
	}
	if out.Notes == nil {
		out.Notes = []reads.Note{}
	}
	if out.References == nil {
		out.References = []reads.TrailerReference{}
	}
	return out, nil
}

// ListTrailers answers docs/api-contract.md §4.4, oldest first (a zero window: the whole list,
// bounded).
func (r *Reads) ListTrailers(ctx context.Context, tenant uuid.UUID, w domain.Window) (domain.Page[reads.Trailer], error) {
	var page domain.Page[reads.Trailer]
	args := params{tenant}
	win, err := trailerKeys.window(w, &args)
	if err != nil {
		return page, err
	}
	var rows []trailerRow
	err = r.in(ctx, tenant, func(ctx context.Context, tx *Tx) error {
		count(tx, &page.Total, "FROM trailers t WHERE t.tenant_id = $1", tenant)
		selectRows(tx, &rows, "SELECT "+trailerCols+" "+trailerFrom+" "+win.where+" "+win.tail, args...)
		return nil
	})
	if err != nil {
		return domain.Page[reads.Trailer]{}, err
	}
	rows, page.HasMore = trim(rows, win.limit)
	page.Items = make([]reads.Trailer, 0, len(rows))
	for _, row := range rows {
		t, err := row.trailer()
		if err != nil {
			return domain.Page[reads.Trailer]{}, err
		}
		page.Items = append(page.Items, t)
		page.Cursors = append(page.Cursors, encodeCursor(row.CreatedAt.UTC().Format(time.RFC3339Nano), row.ID.String()))
	}
	return page, nil
}
