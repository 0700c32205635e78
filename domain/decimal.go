package domain

import "github.com/shopspring/decimal"

// The spec's numeric fields that are not Money (line-item Units and Rate,
// statement miles and hours, load weight) are JSON numbers, never strings:
// shopspring/decimal quotes them unless told otherwise.
func init() { decimal.MarshalJSONWithoutQuotes = true }
