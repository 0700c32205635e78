// Command openapigen writes rest/openapi.json, the OpenAPI document the
// server serves, from rest/openapi.yaml (run by go generate in rest/).
package main

import (
	"log"
	"os"

	"github.com/haulgraph/haulgraph/rest"
)

func main() {
	b, err := rest.BuildOpenAPI()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("openapi.json", b, 0o644); err != nil {
		log.Fatal(err)
	}
}
