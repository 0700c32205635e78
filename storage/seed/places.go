package seed

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

// location is what stops copy from the location they call at.
type location struct {
	id     uuid.UUID
	name   string
	typ    string
	status reads.LocationStatus
	street string
	place  place
}

// locationAt derives location i from its row stream; the caller goes on
// drawing from r for the rest of the row.
func (s *seeder) locationAt(r *rand.Rand, i int) location {
	l := location{id: s.ids.of("location", i), typ: reads.LocationTypes[i%len(reads.LocationTypes)]}
	if i < len(reads.LocationTypes)*len(reads.LocationStatuses) {
		l.status = reads.LocationStatuses[i/len(reads.LocationTypes)]
	} else {
		switch x := r.IntN(10); {
		case x == 0:
			l.status = reads.LocationInactive
		case x == 1:
			l.status = reads.LocationDisabled
		default:
			l.status = reads.LocationActive
		}
	}
	l.place = places[r.IntN(len(places))]
	l.street = streetAddress(r)
	word := oneOf(r, companyWords)
	switch l.typ {
	case "Terminal":
		l.name = fmt.Sprintf("%s Terminal", l.place.city)
	case "Shipper/Consignee":
		l.name = fmt.Sprintf("%s %s DC", word, oneOf(r, customerSuffixes))
	case "Cold Warehouse":
		l.name = fmt.Sprintf("%s Cold Storage", word)
	default:
		l.name = fmt.Sprintf("%s Dry Warehouse", word)
	}
	l.name = fmt.Sprintf("%s #%d", l.name, i+1)
	return l
}

// locations: created 2023-01-01 … 2024-12-30, each with 0–3 notes.
func (s *seeder) locations(ctx context.Context) error {
	locs := newTable("locations", "id", "tenant_id", "name", "company_number", "type", "status",
		"street", "city", "state", "zip_code", "email", "phone", "fax", "date_created", "external_id")
	notes := newTable("location_notes", "id", "tenant_id", "location_id", "description", "note_type", "time", "author")
	b := s.batch(locs, notes)
	rl := newRows("location")
	noteN := 0
	for i := 0; i < s.n.locations; i++ {
		r := rl.at(i)
		l := s.locationAt(r, i)
		created := day(2023, 1, 1).Add(time.Duration(r.IntN(730*24*60)) * time.Minute)
		slug := strings.ToLower(strings.Fields(l.name)[0])
		email := []string{}
		for k := r.IntN(3); k > 0; k-- {
			email = append(email, fmt.Sprintf("%s%d@%s.example", []string{"dock", "receiving", "office"}[k-1], i+1, slug))
		}
		phones := []string{phone(r)}
		if r.IntN(3) == 0 {
			phones = append(phones, phone(r))
		}
		fax := ""
		if r.IntN(2) == 0 {
			fax = phone(r)
		}
		locs.add(l.id, s.tid, l.name, fmt.Sprintf("C%05d", 10001+i), l.typ, string(l.status),
			l.street, l.place.city, l.place.state, l.place.zip, email, phones, fax, created,
			opt(fmt.Sprintf("EXT-%06d", 500000+i), r.IntN(2) == 0))
		at := created
		n := r.IntN(4)
		if err := domain.CheckList("notes", "a location", n, reads.MaxLocationNotes); err != nil {
			return fmt.Errorf("seed: location %d: %w", i, err)
		}
		for k := n; k > 0; k-- {
			at = at.Add(time.Duration(1+r.IntN(90*24)) * time.Hour)
			notes.add(s.ids.of("location-note", noteN), s.tid, l.id, oneOf(r, noteTexts), oneOf(r, noteTypes), at,
				strings.ToLower(oneOf(r, firstNames)+"."+oneOf(r, lastNames)))
			noteN++
		}
		if i < len(reads.LocationTypes)*len(reads.LocationStatuses) {
			s.res.LocationIDs = append(s.res.LocationIDs, l.id)
		}
		if err := b.maybeFlush(ctx); err != nil {
			return err
		}
		s.prog.step(s.ph.locations, 1)
	}
	return b.flush(ctx)
}
