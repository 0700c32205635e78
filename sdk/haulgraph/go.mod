module github.com/haulgraph/haulgraph/sdk/haulgraph

go 1.23
