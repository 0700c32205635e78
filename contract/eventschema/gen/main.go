// Command gen writes the event catalogue's files into the current
// directory (contract/, by go generate).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/haulgraph/haulgraph/contract/eventschema"
)

func main() {
	files, err := eventschema.Files("../schema")
	if err != nil {
		fmt.Fprintln(os.Stderr, "eventschema:", err)
		os.Exit(1)
	}
	for path, b := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
