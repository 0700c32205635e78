package domain

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

// AttachmentPath is DESIGN.md's document name: the sanitized file name with
// "_" and the Unix-milliseconds upload time before the extension
// ("rate con.pdf" → "rate con_1767225600000.pdf"). Only the last path segment
// of name survives; separators, control characters and characters that are
// unsafe in file names on common systems are dropped, and so are bidi
// controls. The result is a display
// name only: stored objects are keyed by server-generated ids.
func AttachmentPath(name string, at time.Time) string {
	stem, ext := splitExt(sanitizeFileName(name))
	if stem == "" {
		stem = "document"
	}
	return stem + "_" + strconv.FormatInt(at.UnixMilli(), 10) + ext
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
	stem = name
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		e := name[i+1:]
		if e != "" && utf8.RuneCountInString(e) <= maxExtRunes && isAlnum(e) {
			stem, ext = strings.TrimRight(name[:i], ". "), "."+e
		}
	}
	if r := []rune(stem); len(r) > maxStemRunes {
		stem = strings.TrimRight(string(r[:maxStemRunes]), ". ")
	}
	return stem, ext
}

func isAlnum(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}
