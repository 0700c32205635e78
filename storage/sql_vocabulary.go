package storage

import "strings"

// sqlLiteral is v as an SQL string literal. SQL that repeats a domain
// vocabulary is built from the Go values with it, so the rule is written
// once; the text stays literal (not a bind parameter) because the planner
// matches partial indexes against literals.
func sqlLiteral[T ~string](v T) string {
	return "'" + strings.ReplaceAll(string(v), "'", "''") + "'"
}

// sqlLiterals is vs as a comma-separated list of literals, for IN (...).
func sqlLiterals[T ~string](vs []T) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = sqlLiteral(v)
	}
	return strings.Join(parts, ", ")
}
