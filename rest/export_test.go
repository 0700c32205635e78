package rest_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/shopspring/decimal"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage/readstest"
	"github.com/haulgraph/haulgraph/testkit"
)

func init() {
	// The OpenAPI checker reads NDJSON bodies as text.
	openapi3filter.RegisterBodyDecoder("application/x-ndjson", openapi3filter.PlainBodyDecoder)
}

const exportPath = "/api/p/v1/driver-settlement-statements/export"

// searchAll pages the search route 100 at a time over [from, to] and returns
// every item as generic JSON (numbers kept exact), plus the ones of driverID.
func searchAll(t *testing.T, f *fixture, from, to string) []map[string]any {
	t.Helper()
	var all []map[string]any
	for pg := 0; ; pg++ {
		var p page[map[string]any]
		res, body := f.call(t, "POST", "/api/p/v1/driver-settlement-statements/search", f.all,
			fmt.Sprintf(`{"Page":%d,"PageSize":100,"StatementDateRange":{"Start":"%sT00:00:00Z","End":"%sT00:00:00Z"}}`, pg, from, to))
		ok(t, res, body, &p)
		all = append(all, p.Items...)
		if len(all) >= p.Total {
			return all
		}
	}
}

// export GETs the export route (validated against the OpenAPI document).
func (f *fixture) export(t *testing.T, query, token string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	h := map[string]string{"Accept-Encoding": "identity"}
	for k, v := range header {
		h[k] = v
	}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	res, b := testkit.Request(t, "GET", f.srv.URL+exportPath+"?"+query, h, "")
	if res.Header.Get("Content-Encoding") == "" {
		f.oas.check(t, "GET", f.srv.URL+exportPath+"?"+query, "", "", res, b)
	}
	return res, b
}

// ndjsonItems decodes an NDJSON body line by line.
func ndjsonItems(t *testing.T, body []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v map[string]any
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("NDJSON line %q: %v", sc.Text(), err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var csvMoneyColumns = []string{"GrossIncome", "NetIncome", "LineHaul", "Accessorials", "Echecks", "ServiceFee",
	"DriverPayment", "Deductions", "Reimbursements", "Credits", "Escrow", "Fuel", "Tolls", "Bonus",
	"Shortfall", "DailyPay", "DailyPerDiem", "StatementPerDiem", "TripValue"}

// expectedCSV derives, from search items, the CSV rows the export's
// documented header promises, column name → value.
func expectedCSV(items []map[string]any) []map[string]string {
	s := func(v any) string {
		switch x := v.(type) {
		case nil:
			return ""
		case json.Number:
			return x.String()
		default:
			return fmt.Sprint(x)
		}
	}
	var rows []map[string]string
	for _, it := range items {
		base := map[string]string{"StatementNumber": s(it["Number"]), "Status": s(it["Status"]), "StatementDate": s(it["StatementDate"]),
			"PayPeriodId": s(it["PayPeriodId"]), "PayPeriodTitle": s(it["PayPeriodTitle"])}
		d := it["Driver"].(map[string]any)
		base["DriverId"], base["DriverName"], base["DriverType"] = s(d["Id"]), s(d["Name"]), s(d["Type"])
		base["DriverCompanyName"], base["DriverSubsidiaryId"], base["DriverFleetName"] = s(d["CompanyName"]), s(d["SubsidiaryId"]), s(d["FleetName"])
		totals := it["Totals"].(map[string]any)
		base["Currency"] = ""
		for _, c := range csvMoneyColumns {
			base[c] = ""
			if m, ok := totals[c].(map[string]any); ok {
				base[c] = s(m["Amount"])
				base["Currency"] = s(m["Currency"])
			}
		}
		for _, c := range []string{"NumberOfTrips", "LoadedMiles", "EmptyMiles", "HoursWorked"} {
			base[c] = s(totals[c])
		}
		lines := it["LineItems"].([]any)
		if len(lines) == 0 {
			row := map[string]string{}
			for k, v := range base {
				row[k] = v
			}
			for _, c := range []string{"LinePosition", "LineCategory", "LineTitle", "LinePolicyName", "LineTripNumber", "LineLoadNumber", "LineAmount", "LineCurrency", "LineTransactionType"} {
				row[c] = ""
			}
			rows = append(rows, row)
		}
		for i, l := range lines {
			l := l.(map[string]any)
			row := map[string]string{}
			for k, v := range base {
				row[k] = v
			}
			amt := l["Amount"].(map[string]any)
			row["LinePosition"] = fmt.Sprint(i + 1)
			row["LineCategory"], row["LineTitle"], row["LinePolicyName"] = s(l["Category"]), s(l["Title"]), s(l["PolicyName"])
			row["LineTripNumber"], row["LineLoadNumber"], row["LineTransactionType"] = s(l["TripNumber"]), s(l["LoadNumber"]), s(l["TransactionType"])
			row["LineAmount"], row["LineCurrency"] = s(amt["Amount"]), s(amt["Currency"])
			rows = append(rows, row)
		}
	}
	return rows
}

// compareCSV parses body with encoding/csv and checks it row by row against
// want; money columns compare as exact decimals.
func compareCSV(t *testing.T, body []byte, want []map[string]string) {
	t.Helper()
	r := csv.NewReader(bytes.NewReader(body))
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("the export is not RFC 4180 CSV: %v", err)
	}
	if len(recs) == 0 {
		t.Fatal("no header row")
	}
	header := recs[0]
	if len(header) != 44 || header[0] != "StatementNumber" || header[len(header)-1] != "LineTransactionType" {
		t.Fatalf("header %v", header)
	}
	rows := recs[1:]
	if len(rows) != len(want) {
		t.Fatalf("%d CSV rows, want %d (one per line item of the search route's statements)", len(rows), len(want))
	}
	money := map[string]bool{"LineAmount": true}
	for _, c := range csvMoneyColumns {
		money[c] = true
	}
	for i, rec := range rows {
		for j, col := range header {
			got, exp := rec[j], want[i][col]
			if money[col] && got != "" && exp != "" {
				g, err1 := decimal.NewFromString(got)
				e, err2 := decimal.NewFromString(exp)
				if err1 != nil || err2 != nil || !g.Equal(e) {
					t.Fatalf("row %d %s = %q, want %q", i+1, col, got, exp)
				}
				continue
			}
			if got != exp {
				t.Fatalf("row %d (statement %s) %s = %q, want %q", i+1, rec[0], col, got, exp)
			}
		}
	}
}

func TestExportStatements(t *testing.T) {
	f := newFixture(t, apptest.Options{})
	from, to := f.seed.StatementFrom.String(), f.seed.StatementTo.String()
	items := searchAll(t, f, from, to)
	if len(items) <= 100 {
		t.Fatalf("the seed has %d visible statements; the test wants more than one search page", len(items))
	}
	rangeQ := "start=" + from + "&end=" + to

	t.Run("CSV equals the search route's data", func(t *testing.T) {
		res, body := f.export(t, rangeQ+"&format=csv", f.all, nil)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("status %d: %s", res.StatusCode, body)
		}
		if ct := res.Header.Get("Content-Type"); ct != "text/csv; charset=utf-8; header=present" {
			t.Fatalf("Content-Type %q", ct)
		}
		if cd := res.Header.Get("Content-Disposition"); cd != `attachment; filename=settlement-statements_`+from+`_`+to+`.csv` {
			t.Fatalf("Content-Disposition %q", cd)
		}
		if !bytes.HasPrefix(body, []byte("StatementNumber,")) || !bytes.Contains(body, []byte("\r\n")) {
			t.Fatalf("want a header row without BOM and CRLF line ends: %q", body[:min(len(body), 80)])
		}
		want := expectedCSV(items)
		if len(want) < 5*len(items) {
			t.Fatalf("only %d line items in %d statements: the comparison would be weak", len(want), len(items))
		}
		compareCSV(t, body, want)

		// The same export gzip-compressed is the same bytes.
		zres, zbody := f.export(t, rangeQ, f.all, map[string]string{"Accept-Encoding": "gzip"})
		if zres.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(zres.Header.Get("Vary"), "Accept-Encoding") {
			t.Fatalf("Accept-Encoding gzip: Content-Encoding %q, Vary %q", zres.Header.Get("Content-Encoding"), zres.Header.Get("Vary"))
		}
		zr, err := gzip.NewReader(bytes.NewReader(zbody))
		if err != nil {
			t.Fatal(err)
		}
		plain, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(plain, body) || len(zbody) >= len(body)/3 {
			t.Fatalf("gzip body (%d bytes) does not inflate to the identity body (%d bytes)", len(zbody), len(body))
		}

		// bom=true puts a UTF-8 BOM before the same bytes.
		_, bbody := f.export(t, rangeQ+"&bom=true", f.all, nil)
		if !bytes.Equal(bbody, append([]byte("\uFEFF"), body...)) {
			t.Fatalf("bom=true: %q…", bbody[:min(len(bbody), 20)])
		}
	})

	t.Run("NDJSON lines equal the search items", func(t *testing.T) {
		res, body := f.export(t, rangeQ+"&format=ndjson", f.all, nil)
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/x-ndjson" {
			t.Fatalf("status %d, Content-Type %q", res.StatusCode, res.Header.Get("Content-Type"))
		}
		if cd := res.Header.Get("Content-Disposition"); !strings.HasSuffix(cd, ".ndjson") {
			t.Fatalf("Content-Disposition %q", cd)
		}
		got := ndjsonItems(t, body)
		if !reflect.DeepEqual(got, items) {
			t.Fatalf("NDJSON (%d lines) differs from the search items (%d)", len(got), len(items))
		}
	})

	t.Run("ranges of 0 and 1 rows, and the driver filters", func(t *testing.T) {
		res, body := f.export(t, "start=2031-01-01&end=2031-12-31", f.all, nil)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("empty range: %d %s", res.StatusCode, body)
		}
		compareCSV(t, body, nil)
		if _, body := f.export(t, "start=2031-01-01&end=2031-12-31&format=ndjson", f.all, nil); len(body) != 0 {
			t.Fatalf("empty NDJSON export: %q", body)
		}
		one := items[len(items)/2]
		driver := one["Driver"].(map[string]any)["Id"].(string)
		day := one["StatementDate"].(string)
		_, body = f.export(t, "start="+day+"&end="+day+"&driverId="+driver+"&format=ndjson", f.all, nil)
		if got := ndjsonItems(t, body); len(got) != 1 || !reflect.DeepEqual(got[0], one) {
			t.Fatalf("one statement: got %d lines", len(got))
		}
		_, body = f.export(t, "start="+day+"&end="+day+"&driverId="+driver, f.all, nil)
		compareCSV(t, body, expectedCSV([]map[string]any{one}))
		// driverType filters as search does, in any case (the contract's
		// rule for the search's DriverType, which the export mirrors).
		for _, c := range []struct {
			spelling string
			want     domain.DriverType
		}{{"OWNER_OPERATOR", domain.OwnerOperator}, {"company", domain.CompanyDriver}, {"Contractor", domain.ContractDriver}} {
			res, body := f.export(t, rangeQ+"&format=ndjson&driverType="+c.spelling, f.all, nil)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("driverType=%s: %d %s", c.spelling, res.StatusCode, body)
			}
			got := ndjsonItems(t, body)
			if len(got) != f.seed.VisibleByDriverType[c.want] || len(got) == 0 {
				t.Fatalf("driverType=%s: %d statements, want %d", c.spelling, len(got), f.seed.VisibleByDriverType[c.want])
			}
			for _, it := range got {
				if it["Driver"].(map[string]any)["Type"] != string(c.want) {
					t.Fatalf("driverType=%s let through %v", c.spelling, it["Driver"])
				}
			}
		}
	})

	t.Run("bad ranges and formats are 400 problems", func(t *testing.T) {
		for _, c := range []struct{ query, field string }{
			{"end=2025-01-31", "start"},
			{"start=2025-01-01", "end"},
			{"start=2025-13-01&end=2025-12-31", "start"},
			{"start=2025-01-01T00:00:00Z&end=2025-12-31", "start"},
			{"start=2025-02-01&end=2025-01-31", "end"},
			{rangeQ + "&format=xml", "format"},
			{rangeQ + "&driverType=PILOT", "driverType"},
			{rangeQ + "&driverType=COMPANYX", "driverType"},
			{rangeQ + "&driverType=", "driverType"},
			{rangeQ + "&driverId=42", "driverId"},
			{rangeQ + "&format=ndjson&bom=true", "bom"},
		} {
			res, body := f.export(t, c.query, f.all, nil)
			wantFieldError(t, res, body, c.field)
		}
		// Only CSV, NDJSON or JSON problems are on offer.
		res, body := f.export(t, rangeQ, f.all, map[string]string{"Accept": "application/pdf"})
		wantProblem(t, res, body, http.StatusNotAcceptable)
		res, _ = f.export(t, rangeQ, f.all, map[string]string{"Accept": "text/csv"})
		if res.StatusCode != http.StatusOK {
			t.Fatalf("Accept: text/csv → %d", res.StatusCode)
		}
	})

	t.Run("scope", func(t *testing.T) {
		res, body := f.export(t, rangeQ, "", nil)
		wantProblem(t, res, body, http.StatusUnauthorized)
		other := f.srv.Token(t, f.tenant, domain.ScopeInvoiceRead, domain.ScopeLoadRead)
		res, body = f.export(t, rangeQ, other, nil)
		wantProblem(t, res, body, http.StatusForbidden)
		if !strings.Contains(res.Header.Get("WWW-Authenticate"), `scope="driver:read"`) {
			t.Fatalf("WWW-Authenticate %q", res.Header.Get("WWW-Authenticate"))
		}
		// The scope is checked before the parameters.
		res, body = f.export(t, "format=xml", other, nil)
		wantProblem(t, res, body, http.StatusForbidden)
	})

	t.Run("tenant isolation", func(t *testing.T) {
		tb := apptest.NewTenant(t, f.srv, "export-b")
		b := readstest.Seed(t, f.srv.DB, tb.ID, tb.SubsidiaryID, "export-b", 20)
		tokB := f.srv.Token(t, tb, domain.ScopeDriverRead)
		wide := "start=2020-01-01&end=2030-12-31"
		_, bodyA := f.export(t, wide+"&format=ndjson", f.all, nil)
		if got := ndjsonItems(t, bodyA); !reflect.DeepEqual(got, items) {
			t.Fatalf("tenant A's export over a wide range: %d statements, want its own %d", len(got), len(items))
		}
		for _, id := range []string{b.Drivers[0].String(), b.Drivers[1].String(), b.Drivers[2].String()} {
			if bytes.Contains(bodyA, []byte(id)) {
				t.Fatalf("tenant A's export holds tenant B's driver %s", id)
			}
		}
		_, bodyB := f.export(t, wide+"&format=ndjson", tokB, nil)
		gotB := ndjsonItems(t, bodyB)
		if len(gotB) != 18 { // readstest.Seed: 20 written, #6 Generating and #7 Draft stay hidden
			t.Fatalf("tenant B exported %d statements, want 18", len(gotB))
		}
		for _, it := range gotB {
			d := it["Driver"].(map[string]any)["Id"].(string)
			if d != b.Drivers[0].String() && d != b.Drivers[1].String() && d != b.Drivers[2].String() {
				t.Fatalf("tenant B's export holds a driver not of B: %s", d)
			}
		}
	})
}
