// Package openapi holds the REST schemas generated from the served OpenAPI
// document. It is internal: the SDK's public types are written by hand, and
// its tests check them against these.
package openapi

//go:generate go -C ../../../.. tool oapi-codegen -config sdk/haulgraph/internal/openapi/oapi-codegen.yaml rest/openapi.json
