module github.com/haulgraph/haulgraph/sdk/haulgraph

go 1.23

require github.com/gorilla/websocket v1.5.3
