package domain

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// One date-time rule for both transports. A date-time is RFC 3339
// with an offset (OpenAPI's format: date-time, the GraphQL DateTime scalar);
// bare dates and offset-less times are refused because they name no instant.
// Every date and date-time lies in [MinTime, MaxTime]: PostgreSQL and
// encoding/json both handle far more, but no freight record lies outside it,
// and a bound that holds everywhere keeps year 0 or 10000 out of SQL.
var (
	MinTime = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
	MaxTime = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
)

// DateTimePattern is RFC 3339's date-time: at most nanoseconds, a Z or a
// numeric offset; the document states it and MaxDateTimeLength.
const DateTimePattern = `^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?([Zz]|[+-][0-9]{2}:[0-9]{2})$`

// MaxDateTimeLength is the longest date-time DateTimePattern admits.
const MaxDateTimeLength = 35 // len("2006-01-02T15:04:05.999999999-07:00")

var dateTimeShape = regexp.MustCompile(DateTimePattern)

// dateTimeExample is quoted in every date-time error message.
const dateTimeExample = "2025-01-31T00:00:00Z"

// ParseDateTime reads an RFC 3339 date-time within [MinTime, MaxTime]. The
// error message is meant for clients; transports prefix the field name.
func ParseDateTime(s string) (time.Time, error) {
	if !dateTimeShape.MatchString(s) {
		return time.Time{}, fmt.Errorf("must be an RFC 3339 date-time with an offset, such as %s", dateTimeExample)
	}
	// RFC 3339 (and JSON Schema's format) allow a lower-case t and z.
	t, err := time.Parse(time.RFC3339Nano, strings.ToUpper(s))
	if err != nil {
		return time.Time{}, fmt.Errorf("must be an RFC 3339 date-time with an offset, such as %s", dateTimeExample)
	}
	return t, CheckTimeRange(t)
}

// ParseDate reads a calendar date "yyyy-MM-dd" within the same range.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, fmt.Errorf("must be a date yyyy-MM-dd, such as %s", dateTimeExample[:10])
	}
	return Date{Time: t}, CheckTimeRange(t)
}

// CheckTimeRange refuses instants outside [MinTime, MaxTime].
func CheckTimeRange(t time.Time) error {
	if u := t.UTC(); u.Before(MinTime) || u.After(MaxTime) {
		return fmt.Errorf("must lie between %s and %s", MinTime.Format(time.DateOnly), MaxTime.Format(time.DateOnly))
	}
	return nil
}
