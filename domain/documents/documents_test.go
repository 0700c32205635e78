package documents

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/domain"
)

func TestAttachmentPath(t *testing.T) {
	t.Parallel()
	at := time.UnixMilli(1767225600123)
	const pdf, jpeg, png, gif = "application/pdf", "image/jpeg", "image/png", "image/gif"
	for _, c := range []struct{ in, ct, want string }{
		{"rate con.pdf", pdf, "rate con_1767225600123.pdf"},
		{"../../etc/passwd", pdf, "passwd_1767225600123.pdf"},
		{`C:\Users\x\BOL 7.JPG`, jpeg, "BOL 7_1767225600123.JPG"},
		{"scan.jpeg", jpeg, "scan_1767225600123.jpeg"},
		{"scan.png", jpeg, "scan_1767225600123.jpg"},
		{"..", png, "document_1767225600123.png"},
		{"", pdf, "document_1767225600123.pdf"},
		{".hidden", pdf, "hidden_1767225600123.pdf"},
		{"a\x00b\x1f\x7fc.png", png, "abc_1767225600123.png"},
		{"line\r\nbreak.pdf", pdf, "linebreak_1767225600123.pdf"},
		{`what?<>:"|*.gif`, gif, "what_1767225600123.gif"},
		{"archive.tar.gz", pdf, "archive.tar_1767225600123.pdf"},
		{"name.with space ext", pdf, "name.with space ext_1767225600123.pdf"},
		{"no-ext.", pdf, "no-ext_1767225600123.pdf"},
		{"Lieferschein Müller.pdf", pdf, "Lieferschein Müller_1767225600123.pdf"},
		{"bad\xffutf8.pdf", pdf, "badutf8_1767225600123.pdf"},
		{"invoice\u202Efdp.exe", pdf, "invoicefdp_1767225600123.pdf"},
		{"\u202A\u202B\u202C\u202Dx\u2066\u2067\u2068\u2069.pdf", pdf, "x_1767225600123.pdf"},
		{strings.Repeat("x", 500), pdf, strings.Repeat("x", maxStemRunes) + "_1767225600123.pdf"},
		{"x." + strings.Repeat("e", 40), pdf, "x." + strings.Repeat("e", 40) + "_1767225600123.pdf"},
		// Active content named so keeps the name, not the extension.
		{"x.html", pdf, "x_1767225600123.pdf"},
		{"x.svg", png, "x_1767225600123.png"},
		{"x.js", gif, "x_1767225600123.gif"},
		{"x.hta", jpeg, "x_1767225600123.jpg"},
		{"x.pdf.html", pdf, "x.pdf_1767225600123.pdf"},
		{"x.html", "", "x_1767225600123"},
	} {
		got := AttachmentPath(c.in, c.ct, at)
		if got != c.want {
			t.Errorf("AttachmentPath(%q, %s) = %q, want %q", c.in, c.ct, got, c.want)
		}
		if strings.ContainsAny(got, `/\`) {
			t.Errorf("AttachmentPath(%q) = %q keeps a separator", c.in, got)
		}
		if c.ct != "" && DownloadName(got, c.ct) != got {
			t.Errorf("DownloadName(%q) = %q, not the stored name", got, DownloadName(got, c.ct))
		}
	}
	// A name stored before the extension followed the type.
	if got := DownloadName("x_1767225600123.html", pdf); got != "x_1767225600123.pdf" {
		t.Errorf("DownloadName: %q", got)
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
		if got := Sniff([]byte(head)); got != want {
			t.Errorf("SniffDocument(%q) = %q, want %q", head, got, want)
		}
	}
}

func TestCheckDocumentType(t *testing.T) {
	t.Parallel()
	trip := Targets[domain.ParentTrip]
	if got, err := trip.CheckDocumentType("  temp. log "); err != nil || got != "temp. log" {
		t.Errorf("trimmed, case-insensitive match: %q %v", got, err)
	}
	for _, refused := range []string{"Carrier Invoice", "TRIP MANIFEST"} {
		_, err := trip.CheckDocumentType(refused)
		if domain.CodeOf(err) != domain.CodeInvalid || !strings.Contains(err.Error(), "refused on trips") {
			t.Errorf("%s: %v", refused, err)
		}
	}
	if _, err := Targets[domain.ParentCarrier].CheckDocumentType("License"); err == nil {
		t.Error("a driver type was accepted on a carrier")
	}
	for target, tt := range Targets {
		if tt.Parent != target || tt.Op.Scope == "" {
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
