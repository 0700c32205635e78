package documents

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

const (
	maxStemRunes = 120
	maxExtRunes  = 10
)

// AttachmentPath is docs/architecture.md's document name: the sanitized file name with
// "_" and the Unix-milliseconds upload time before the extension
// ("rate con.pdf" → "rate con_1767225600000.pdf"). Only the last path segment
// of name survives; separators, control characters and characters that are
// unsafe in file names on common systems are dropped, and so are bidi
// controls. The extension follows contentType, the sniffed type, not the
// name (typedExt). The result is a display name only: stored objects are
// keyed by server-generated ids.
func AttachmentPath(name, contentType string, at time.Time) string {
	stem, ext := splitExt(sanitizeFileName(name))
	if stem == "" {
		stem = "document"
	}
	return stem + "_" + strconv.FormatInt(at.UnixMilli(), 10) + typedExt(ext, contentType)
}

// DownloadName is the file name a download is offered under: the stored
// name with the extension of the stored type (names saved before the
// extension followed the type get it too).
func DownloadName(path, contentType string) string {
	stem, ext := cutExt(path)
	if stem == "" {
		stem = "document"
	}
	return stem + typedExt(ext, contentType)
}

// documentExts are the extensions of each type Sniff answers, the
// usual one first.
var documentExts = map[string][]string{
	"application/pdf": {".pdf"},
	"image/jpeg":      {".jpg", ".jpeg", ".jpe", ".jfif"},
	"image/png":       {".png"},
	"image/gif":       {".gif"},
}

// typedExt keeps the name's extension when it is one of the type's (in the
// name's spelling: ".JPG") and else gives the type's own, so that a PDF
// named x.html is saved and opened as x.pdf: whatever the name says, the
// file is opened by what its bytes are. An unknown type gets none.
func typedExt(ext, contentType string) string {
	exts := documentExts[contentType]
	for _, e := range exts {
		if strings.EqualFold(ext, e) {
			return ext
		}
	}
	if len(exts) == 0 {
		return ""
	}
	return exts[0]
}

func sanitizeFileName(name string) string {
	if !utf8.ValidString(name) {
		name = strings.ToValidUTF8(name, "")
	}
	// The last segment after either separator: "../../etc/passwd" → "passwd".
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsControl(r), r == unicode.ReplacementChar:
			return -1
		case unicode.Is(unicode.Bidi_Control, r):
			// U+202A–U+202E, U+2066–U+2069 (and the marks): they reorder what
			// a reader sees, so "invoice\u202Efdp.exe" would display as a PDF.
			return -1
		case strings.ContainsRune(`<>:"|?*`, r):
			return -1
		case unicode.IsSpace(r):
			return ' '
		}
		return r
	}, name)
	name = strings.Join(strings.Fields(name), " ")
	// Leading dots would hide the file or spell "..".
	return strings.Trim(name, ". ")
}

// splitExt splits a short alphanumeric extension off name and bounds both
// parts' lengths.
func splitExt(name string) (stem, ext string) {
	stem, ext = cutExt(name)
	if r := []rune(stem); len(r) > maxStemRunes {
		stem = strings.TrimRight(string(r[:maxStemRunes]), ". ")
	}
	return stem, ext
}

// cutExt splits a short alphanumeric extension off name.
func cutExt(name string) (stem, ext string) {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		e := name[i+1:]
		if e != "" && utf8.RuneCountInString(e) <= maxExtRunes && isAlnum(e) {
			return strings.TrimRight(name[:i], ". "), "." + e
		}
	}
	return name, ""
}

func isAlnum(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}
