package rest

import (
	"github.com/haulgraph/haulgraph/domain/reads"
)

// Request bodies exactly as docs/api-contract.md §4.2, §4.5 and §4.6 name their fields; pointers
// keep "absent" apart from zero so that domain can say which is missing.
// A field the document marks nullable says `nullable:"true"`; JSON null in
// any other is refused (refuseNulls). Integers are numbers (fields.Number),
// date-times and uuids strings read by fields.

// pages reads the contract's offset paging.
func pages(f *fields, page, size *number) (*int, *int) {
	return f.Number("Page", page), f.Number("PageSize", size)
}

// statementRangeBody is the statement search's required window.
type statementRangeBody struct {
	Start *string `json:"Start"`
	End   *string `json:"End"`
}

// dateRangeBody is an optional window whose bounds may be null.
type dateRangeBody struct {
	Start *string `json:"Start" nullable:"true"`
	End   *string `json:"End" nullable:"true"`
}

type statementSearchBody struct {
	Page               *number             `json:"Page"`
	PageSize           *number             `json:"PageSize"`
	StatementDateRange *statementRangeBody `json:"StatementDateRange"`
	DriverType         *string             `json:"DriverType" nullable:"true"`
	DriverId           *string             `json:"DriverId" nullable:"true"` //nolint:revive // the API contract's name
}

func (b statementSearchBody) input() (reads.StatementSearchInput, error) {
	var f fields
	in := reads.StatementSearchInput{DriverType: b.DriverType, DriverID: b.DriverId}
	in.Page, in.PageSize = pages(&f, b.Page, b.PageSize)
	if r := b.StatementDateRange; r != nil {
		in.StatementDateRange = dateRange(&f, "StatementDateRange", r.Start, r.End)
	}
	return in, f.Err()
}

type locationSearchBody struct {
	Page             *number        `json:"Page" nullable:"true"`
	PageSize         *number        `json:"PageSize"`
	Status           []string       `json:"Status" nullable:"true"`
	LocationIds      []string       `json:"LocationIds" nullable:"true"` //nolint:revive // the API contract's name
	CreatedDateRange *dateRangeBody `json:"CreatedDateRange" nullable:"true"`
}

func (b locationSearchBody) input() (reads.LocationSearchInput, error) {
	var f fields
	in := reads.LocationSearchInput{Status: b.Status, LocationIDs: b.LocationIds}
	in.Page, in.PageSize = pages(&f, b.Page, b.PageSize)
	if r := b.CreatedDateRange; r != nil {
		in.CreatedDateRange = dateRange(&f, "CreatedDateRange", r.Start, r.End)
	}
	return in, f.Err()
}

type userSearchBody struct {
	Page     *number `json:"Page"`
	PageSize *number `json:"PageSize"`
	Keyword  *string `json:"Keyword" nullable:"true"`
}

func (b userSearchBody) input() (reads.UserSearchInput, error) {
	var f fields
	in := reads.UserSearchInput{Keyword: b.Keyword}
	in.Page, in.PageSize = pages(&f, b.Page, b.PageSize)
	return in, f.Err()
}

// dateRange reads a window's bounds, naming a bound that breaks domain's
// date-time rule.
func dateRange(f *fields, field string, start, end *string) *reads.DateRangeInput {
	return &reads.DateRangeInput{Start: f.DateTime(field+".Start", start), End: f.DateTime(field+".End", end)}
}
