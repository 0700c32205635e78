package rest

import (
	"time"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

// Request bodies exactly as docs/api-contract.md §4.2, §4.5 and §4.6 name their fields; pointers
// keep "absent" apart from zero so that domain can say which is missing.

type dateRangeBody struct {
	Start *string `json:"Start"`
	End   *string `json:"End"`
}

type statementSearchBody struct {
	Page               *int           `json:"Page"`
	PageSize           *int           `json:"PageSize"`
	StatementDateRange *dateRangeBody `json:"StatementDateRange"`
	DriverType         *string        `json:"DriverType"`
	DriverId           *string        `json:"DriverId"` //nolint:revive // the API contract's name
}

func (b statementSearchBody) input() (reads.StatementSearchInput, error) {
	in := reads.StatementSearchInput{Page: b.Page, PageSize: b.PageSize, DriverType: b.DriverType, DriverID: b.DriverId}
	r, err := b.StatementDateRange.input("StatementDateRange")
	in.StatementDateRange = r
	return in, err
}

type locationSearchBody struct {
	Page             *int           `json:"Page"`
	PageSize         *int           `json:"PageSize"`
	Status           []string       `json:"Status"`
	LocationIds      []string       `json:"LocationIds"` //nolint:revive // the API contract's name
	CreatedDateRange *dateRangeBody `json:"CreatedDateRange"`
}

func (b locationSearchBody) input() (reads.LocationSearchInput, error) {
	in := reads.LocationSearchInput{Page: b.Page, PageSize: b.PageSize, Status: b.Status, LocationIDs: b.LocationIds}
	r, err := b.CreatedDateRange.input("CreatedDateRange")
	in.CreatedDateRange = r
	return in, err
}

type userSearchBody struct {
	Page     *int    `json:"Page"`
	PageSize *int    `json:"PageSize"`
	Keyword  *string `json:"Keyword"`
}

// input parses the bounds with domain's one date-time rule, naming a bound
// that breaks it.
func (b *dateRangeBody) input(field string) (*reads.DateRangeInput, error) {
	if b == nil {
		return nil, nil
	}
	var v domain.Validation
	parse := func(name string, s *string) *time.Time {
		if s == nil {
			return nil
		}
		t, err := domain.ParseDateTime(*s)
		if err != nil {
			v.Add(field+"."+name, name+" "+err.Error())
			return nil
		}
		return &t
	}
	r := &reads.DateRangeInput{Start: parse("Start", b.Start), End: parse("End", b.End)}
	return r, v.Err()
}
