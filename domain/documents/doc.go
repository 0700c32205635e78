// Package documents is the documents area: upload targets and their
// document types, content sniffing, file names, signed download links, the
// upload service and the store it calls.
package documents
