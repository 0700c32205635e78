package domain

// CodeTimeout is a request whose body did not arrive in time (HTTP 408):
// the connection's bound cut it, not anything the request said.
const CodeTimeout Code = "REQUEST_TIMEOUT"
