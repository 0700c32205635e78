package seed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

// trailers: every status, equipment type and size and licence country of
// domain/enums.go; every tenth trailer carries only its number (all optional
// fields absent). Notes and references are stored as JSON arrays of
// reads.Note and reads.TrailerReference.
func (s *seeder) trailers(ctx context.Context) error {
	t := newTable("trailers", "id", "tenant_id", "created_at", "trailer_num", "make", "license_num", "license_state",
		"vin_num", "status", "subsidiary_id", "equipment_type", "equipment_size", "insurance_company",
		"insurance_policy_number", "fleet_id", "year", "license_country", "plate_expires_at", "license_expires_at",
		"insurance_expires_at", "inspection_expires_at", "capacity_pallets", "capacity_weight", "notes", "refs")
	b := s.batch(t)
	rt := newRows("trailer")
	s.res.TrailerID = s.ids.of("trailer", 0)
	for i := 0; i < s.n.trailers; i++ {
		r := rt.at(i)
		id := s.ids.of("trailer", i)
		created := day(2019, 1, 1).Add(time.Duration(r.IntN(6*365*24)) * time.Hour)
		num := fmt.Sprintf("TRL-%05d", 5001+i)
		if i%10 == 9 {
			t.add(id, s.tid, created, num, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, "[]", "[]")
			s.prog.step(s.ph.trailers, 1)
			continue
		}
		status := reads.TrailerStatuses[i%len(reads.TrailerStatuses)]
		if i >= len(reads.TrailerStatuses) && r.IntN(10) < 7 {
			status = "Active"
		}
		equip := reads.TrailerEquipmentTypes[i%len(reads.TrailerEquipmentTypes)]
		size := reads.TrailerEquipmentSizes[i%len(reads.TrailerEquipmentSizes)]
		country := reads.LicenseCountries[0]
		if i%9 == 4 {
			country = reads.LicenseCountries[1+(i/9)%2]
		}
		p := places[r.IntN(len(places))]
		year := 2012 + r.IntN(14)
		expires := func() time.Time { return day(2025, 1, 1).AddDate(0, r.IntN(30), r.IntN(28)) }
		vin := strings.ToUpper(fmt.Sprintf("1%s%011d", []string{"UY", "JJ", "GR", "H3"}[r.IntN(4)], r.Int64N(1e11)))
		var notes []reads.Note
		for k := r.IntN(3); k > 0; k-- {
			notes = append(notes, reads.Note{
				ID: s.ids.of("trailer-note", i*4+k).String(), Description: oneOf(r, noteTexts), NoteType: oneOf(r, noteTypes),
				Time: created.Add(time.Duration(24*(30+r.IntN(900))) * time.Hour), User: strings.ToLower(oneOf(r, firstNames)),
			})
		}
		var refs []reads.TrailerReference
		for k := r.IntN(3); k > 0; k-- {
			refs = append(refs, reads.TrailerReference{Type: oneOf(r, referenceTypes), Value: fmt.Sprintf("R-%08d", r.IntN(1e8))})
		}
		if err := errors.Join(domain.CheckList("notes", "a trailer", len(notes), reads.MaxTrailerNotes),
			domain.CheckList("references", "a trailer", len(refs), reads.MaxTrailerReferences)); err != nil {
			return fmt.Errorf("seed: trailer %d: %w", i, err)
		}
		pallets, weight := 26, 45000
		if strings.HasPrefix(size, "53") {
			pallets = 30
		} else if strings.HasPrefix(size, "2") || strings.HasPrefix(size, "4") {
			pallets = 20
		}
		if equip == "Reefer" {
			weight = 43500
		}
		t.add(id, s.tid, created, num, oneOf(r, trailerMakes), fmt.Sprintf("%s%05d", p.state, r.IntN(100000)), p.state, vin,
			string(status), s.ids.of("subsidiary", i%s.n.subsidiaries), equip, size, oneOf(r, insurers),
			fmt.Sprintf("POL-%07d", r.IntN(1e7)), opt(s.ids.of("fleet", i%s.n.fleets), i%4 != 3), year, country,
			expires(), expires(), expires(), opt(expires(), i%5 != 2),
			opt(pallets, equip != "Tanker"), weight, jsonArray(notes), jsonArray(refs))
		if err := b.maybeFlush(ctx); err != nil {
			return err
		}
		s.prog.step(s.ph.trailers, 1)
	}
	return b.flush(ctx)
}

// jsonArray renders a slice as a JSON array ("[]" when empty).
func jsonArray[T any](xs []T) string {
	if len(xs) == 0 {
		return "[]"
	}
	b, err := json.Marshal(xs)
	if err != nil {
		panic(err) // plain structs always marshal
	}
	return string(b)
}
