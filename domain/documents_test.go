package domain

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestAttachmentPath(t *testing.T) {
	t.Parallel()
	at := time.UnixMilli(1767225600123)
	for in, want := range map[string]string{
		"rate con.pdf":            "rate con_1767225600123.pdf",
		"../../etc/passwd":        "passwd_1767225600123",
		`C:\Users\x\BOL 7.JPG`:    "BOL 7_1767225600123.JPG",
		"..":                      "document_1767225600123",
		"":                        "document_1767225600123",
		".hidden":                 "hidden_1767225600123",
		"a\x00b\x1f\x7fc.png":     "abc_1767225600123.png",
		"line\r\nbreak.pdf":       "linebreak_1767225600123.pdf",
		`what?<>:"|*.gif`:         "what_1767225600123.gif",
		"archive.tar.gz":          "archive.tar_1767225600123.gz",
		"name.with space ext":     "name.with space ext_1767225600123",
		"no-ext.":                 "no-ext_1767225600123",
		"Lieferschein Müller.pdf": "Lieferschein Müller_1767225600123.pdf",
		"bad\xffutf8.pdf":         "badutf8_1767225600123.pdf",
		"invoice\u202Efdp.exe":    "invoicefdp_1767225600123.exe",
		"\u202A\u202B\u202C\u202Dx\u2066\u2067\u2068\u2069.pdf": "x_1767225600123.pdf",
		strings.Repeat("x", 500):                                strings.Repeat("x", maxStemRunes) + "_1767225600123",
		"x." + strings.Repeat("e", 40):                          "x." + strings.Repeat("e", 40) + "_1767225600123",
	} {
		got := AttachmentPath(in, at)
		if got != want {
			t.Errorf("AttachmentPath(%q) = %q, want %q", in, got, want)
		}
		if strings.ContainsAny(got, `/\`) {
			t.Errorf("AttachmentPath(%q) = %q keeps a separator", in, got)
		}
	}
}

func TestSniffDocument(t *testing.T) {
	t.Parallel()
	for head, want := range map[string]string{
		"%PDF-1.4\n":                   "application/pdf",
		"\xff\xd8\xff\xe0\x00\x10JFIF": "image/jpeg",
		"\x89PNG\r\n\x1a\n\x00":        "image/png",
		"GIF87a..":                     "image/gif",
		"GIF89a..":                     "image/gif",
		"GIF88a..":                     "",
		"%PDF":                         "",
		"hello.pdf":                    "",
		"<svg xmlns=":                  "",
		"PK\x03\x04":                   "",
		"\x89PNG\r\n":                  "",
	} {
		if got := SniffDocument([]byte(head)); got != want {
			t.Errorf("SniffDocument(%q) = %q, want %q", head, got, want)
		}
	}
}

func TestCheckDocumentType(t *testing.T) {
	t.Parallel()
	trip := DocumentTargets[ParentTrip]
	if got, err := trip.CheckDocumentType("  temp. log "); err != nil || got != "temp. log" {
		t.Errorf("trimmed, case-insensitive match: %q %v", got, err)
	}
	for _, refused := range []string{"Carrier Invoice", "TRIP MANIFEST"} {
		_, err := trip.CheckDocumentType(refused)
		if CodeOf(err) != CodeInvalid || !strings.Contains(err.Error(), "refused on trips") {
			t.Errorf("%s: %v", refused, err)
		}
	}
	if _, err := DocumentTargets[ParentCarrier].CheckDocumentType("License"); err == nil {
		t.Error("a driver type was accepted on a carrier")
	}
	for target, tt := range DocumentTargets {
		if tt.Parent != target || RequiredScope[tt.Op] == "" {
			t.Errorf("%s: target wiring %+v", target, tt)
		}
	}
}

func TestLimitReaderStopsAtTheLimit(t *testing.T) {
	t.Parallel()
	lr := &limitReader{r: strings.NewReader(strings.Repeat("a", 11)), left: 10}
	buf := make([]byte, 4)
	total := 0
	var err error
	for err == nil {
		var n int
		n, err = lr.Read(buf)
		total += n
	}
	if err != errTooLarge || total > 10 {
		t.Errorf("read %d then %v, want at most 10 then errTooLarge", total, err)
	}
	lr = &limitReader{r: strings.NewReader(strings.Repeat("a", 10)), left: 10}
	b, err := io.ReadAll(lr)
	if err != nil || len(b) != 10 {
		t.Errorf("exactly the limit: %d %v", len(b), err)
	}
}
