package seed

// SeededTables exposes the tables a seed loads to the package's tests.
func SeededTables() []string { return seededTables }
