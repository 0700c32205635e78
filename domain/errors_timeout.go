package domain

// CodeTimeout is a request whose body did not arrive in time (HTTP 408):
// the connection's bound cut it, not anything the request said.
const CodeTimeout Code = "REQUEST_TIMEOUT"

// CodeCanceled is a request whose client went away before its answer (a
// subscriber reset during its replay): logged quietly, never an internal
// error; only a client that has left could read it.
const CodeCanceled Code = "CLIENT_CLOSED_REQUEST"
