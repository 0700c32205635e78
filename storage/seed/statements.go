package seed

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

// firstStatementDate is the first Friday of 2025; statements follow weekly.
var firstStatementDate = day(2025, time.January, 3)

// Statement line categories (docs/api-contract.md §2.3's display names).
const (
	catPerTrip       = "Per Trip"
	catAccessorial   = "Accessorial"
	catFuel          = "Fuel"
	catDeduction     = "Deduction"
	catEscrow        = "Escrow"
	catReimbursement = "Reimbursement"
)

// statementStatus: the last week is still open (Open, Draft or Generating);
// earlier weeks are mostly Processed, some Failed, a few being Reversing.
// Driver 1's and driver 2's first statements are Failed and Reversing so that
// every status exists at every scale.
func statementStatus(r *rand.Rand, d, w int) reads.StatementStatus {
	switch {
	case w == statementWeeks-1:
		return []reads.StatementStatus{reads.StatementOpen, reads.StatementDraft, reads.StatementGenerating}[d%3]
	case w == 0 && d == 1:
		return reads.StatementFailed
	case w == 0 && d == 2:
		return reads.StatementReversing
	}
	switch x := r.IntN(100); {
	case x < 4:
		return reads.StatementFailed
	case x < 5:
		return reads.StatementReversing
	}
	return reads.StatementProcessed
}

// stmtLines accumulates one statement's lines and the totals they imply.
type stmtLines struct {
	s        *seeder
	stmt     int
	id       uuid.UUID
	currency any
	lines    *table
	subs     *table
	pos      int
	maxSubs  int // the most sub-lines of one line
	sums     map[string]cents
	counts   map[string]int
}

func (l *stmtLines) add(category, title string, policy, trip, loadNo any, amount cents, tx any, subs ...subLine) {
	lineID := l.s.ids.of("statement-line", l.stmt*64+l.pos)
	l.lines.add(lineID, l.s.tid, l.id, l.pos, category, title, policy, trip, loadNo, amount.num(), l.currency, tx)
	for k, sl := range subs {
		l.subs.add(l.s.ids.of("statement-sub-line", (l.stmt*64+l.pos)*8+k), l.s.tid, lineID, k,
			sl.description, sl.quantity, sl.rate, sl.amount.num(), l.currency)
	}
	l.pos++
	l.maxSubs = max(l.maxSubs, len(subs))
	l.sums[category] += amount
	l.counts[category]++
}

type subLine struct {
	description, quantity, rate string
	amount                      cents
}

func money(c cents) string { return fmt.Sprintf("%d.%02d", c/100, c%100) }

// statements: drivers × 25 weekly statements dated 2025-01-03 … 2025-06-20.
// Per Trip and Accessorial lines name a policy, trip and load; Fuel,
// Deduction, Escrow and Reimbursement lines are statement-level (null policy,
// trip and load). Deductions, fuel and escrow deposits are negative; escrow
// withdrawals positive. One statement in twenty has no currency.
// It writes statements [from, to): several workers share the phase.
func (s *seeder) statements(ctx context.Context, from, to int) error {
	st := newTable("settlement_statements", "id", "tenant_id", "number", "status", "statement_date",
		"pay_period_id", "pay_period_title", "driver_id", "driver_type", "currency",
		"gross_income", "net_income", "line_haul", "accessorials", "echecks", "service_fee", "driver_payment",
		"deductions", "reimbursements", "credits", "escrow", "fuel", "tolls", "bonus", "shortfall", "daily_pay",
		"daily_per_diem", "statement_per_diem", "trip_value", "number_of_trips", "loaded_miles", "empty_miles",
		"hours_worked")
	lines := newTable("statement_line_items", "id", "tenant_id", "statement_id", "position", "category", "title",
		"policy_name", "trip_number", "load_number", "amount", "currency", "transaction_type")
	subs := newTable("statement_sub_lines", "id", "tenant_id", "line_item_id", "position", "description",
		"quantity", "rate", "amount", "currency")
	b := s.batch(st, lines, subs)
	rs := newRows("statement")
	for i := from; i < to; i++ {
		r := rs.at(i)
		d, w := i%s.n.drivers, i/s.n.drivers
		dtype := driverType(d)
		status := statementStatus(r, d, w)
		number := int32(100001 + i)
		date := firstStatementDate.AddDate(0, 0, 7*w)
		periodStart, periodEnd := date.AddDate(0, 0, -11), date.AddDate(0, 0, -5)
		var currency any = domain.USD
		if r.IntN(20) == 0 {
			currency = nil
		}
		l := &stmtLines{s: s, stmt: i, id: s.ids.of("statement", i), currency: currency, lines: lines, subs: subs,
			sums: map[string]cents{}, counts: map[string]int{}}
		t := s.statementLines(r, l, i, dtype)
		if err := errors.Join(domain.CheckList("line items", "a settlement statement", l.pos, reads.MaxStatementLineItems),
			domain.CheckList("sub-lines", "a statement line item", l.maxSubs, reads.MaxStatementSubLines)); err != nil {
			return fmt.Errorf("seed: statement %d: %w", number, err)
		}

		var gross, net, lineHaul, acc, fuel, ded, esc, reimb cents = 0, 0, l.sums[catPerTrip], l.sums[catAccessorial],
			l.sums[catFuel], l.sums[catDeduction], l.sums[catEscrow], l.sums[catReimbursement]
		gross = lineHaul + acc
		net = gross + fuel + ded + esc + reimb
		has := func(cat string) bool { return l.counts[cat] > 0 }
		computed := status != reads.StatementGenerating // totals come last
		hours := any(nil)
		if dtype == domain.CompanyDriver && t.trips > 0 {
			hours = decimalOf(int64(t.trips)*(900+int64(r.IntN(400)))/10, -1)
		}
		miles := func(m int) any { return opt(decimalOf(int64(m), 0), t.trips > 0 && m > 0 && computed) }
		st.add(l.id, s.tid, number, string(status), date,
			fmt.Sprintf("PP-2025-%02d", w+1), periodStart.Format("Jan 2")+" – "+periodEnd.Format("Jan 2, 2006"),
			s.ids.of("driver", d), string(dtype), currency,
			optNum(gross, computed), optNum(net, computed), optNum(lineHaul, computed && has(catPerTrip)),
			optNum(acc, computed && has(catAccessorial)), optNum(t.echecks, computed && t.echecks != 0),
			optNum(t.serviceFee, computed && t.serviceFee != 0), optNum(net, computed && net > 0),
			optNum(ded, computed && has(catDeduction)), optNum(reimb, computed && has(catReimbursement)),
			nil, optNum(esc, computed && has(catEscrow)), optNum(fuel, computed && has(catFuel)),
			optNum(t.tolls, computed && t.tolls != 0), optNum(t.bonus, computed && t.bonus != 0),
			optNum(-net, computed && net < 0), nil, nil, nil,
			optNum(t.tripValue, computed && t.trips > 0), opt(t.trips, computed),
			miles(t.loadedMiles), miles(t.emptyMiles), opt(hours, hours != nil && computed))

		// The well-known Processed statement has lines of every category.
		rich := true
		if status == reads.StatementProcessed {
			for _, cat := range []string{catPerTrip, catAccessorial, catFuel, catDeduction, catEscrow} {
				rich = rich && has(cat)
			}
		}
		if _, ok := s.res.Statements[status]; !ok && rich {
			s.res.Statements[status] = number
		}
		if status == reads.StatementProcessed || status == reads.StatementFailed {
			s.res.VisibleStatements++
			s.res.VisibleByDriverType[dtype]++
			if d == 0 {
				s.res.DriverVisibleStatements++
			}
		}
		if err := b.maybeFlush(ctx); err != nil {
			return err
		}
		s.prog.step(s.ph.statements, 1)
	}
	return b.flush(ctx)
}

// stmtTotals are the totals not read off a single category.
type stmtTotals struct {
	trips                   int
	loadedMiles, emptyMiles int
	tripValue               cents
	serviceFee, echecks     cents
	tolls, bonus            cents
}

var policies = map[domain.DriverType]string{
	domain.CompanyDriver:  "Company Mileage 2025",
	domain.OwnerOperator:  "Owner Operator 75% Linehaul",
	domain.ContractDriver: "Contractor Flat Rate",
}

var accessorials = []string{"Detention", "Stop Pay", "Layover", "Tarp Pay", "Hazmat Pay"}

// statementLines writes statement i's lines by driver type.
func (s *seeder) statementLines(r *rand.Rand, l *stmtLines, i int, dtype domain.DriverType) stmtTotals {
	var t stmtTotals
	t.trips = 1 + r.IntN(4)
	if r.IntN(15) == 0 {
		t.trips = 0 // a week off: no pay, only deductions
	}
	policy := policies[dtype]
	for k := 0; k < t.trips; k++ {
		li := pick("statement-trip", i*8+k, s.n.loads)
		trip, loadNo := tripNumber(li, 0), loadNumber(li)
		miles := 200 + r.IntN(1000)
		switch dtype {
		case domain.CompanyDriver:
			empty := 10 + r.IntN(140)
			loaded, deadhead := cents(miles*62), cents(empty*40)
			l.add(catPerTrip, "Trip "+trip, policy, trip, loadNo, loaded+deadhead, nil,
				subLine{"Loaded miles", fmt.Sprint(miles), "0.62", loaded},
				subLine{"Empty miles", fmt.Sprint(empty), "0.40", deadhead})
			t.loadedMiles += miles
			t.emptyMiles += empty
			t.tripValue += loaded + deadhead
		case domain.OwnerOperator:
			revenue := cents(miles * 250)
			pay := revenue * 75 / 100
			l.add(catPerTrip, "Trip "+trip, policy, trip, loadNo, pay, nil,
				subLine{"Linehaul revenue", "1", money(revenue) + " × 75%", pay})
			t.loadedMiles += miles
			t.tripValue += revenue
		default:
			flat := between(r, 650, 1400) * 100
			var subs []subLine // a third of contractor trips carry no detail
			if r.IntN(3) != 0 {
				subs = []subLine{{"Flat rate", "1", money(flat), flat}}
			}
			l.add(catPerTrip, "Trip "+trip, policy, trip, loadNo, flat, nil, subs...)
			t.tripValue += flat
		}
		if r.IntN(10) < 3 {
			name := oneOf(r, accessorials)
			if name == "Detention" {
				h := int64(1 + r.IntN(4))
				l.add(catAccessorial, name, "Accessorial Pay Schedule", trip, loadNo, cents(h*2500), nil,
					subLine{"Detention hours", fmt.Sprint(h), "25.00", cents(h * 2500)})
			} else {
				l.add(catAccessorial, name, "Accessorial Pay Schedule", trip, loadNo, between(r, 25, 150)*100, nil)
			}
		}
	}
	if dtype != domain.CompanyDriver {
		for k := r.IntN(3); k > 0; k-- {
			p := oneOf(r, places)
			tenths := int64(600 + r.IntN(1400)) // 60.0–200.0 gallons
			amount := -cents(tenths * 3899 / 100)
			l.add(catFuel, "Fuel purchase — "+p.city+", "+p.state, nil, nil, nil, amount, nil,
				subLine{"Diesel", fmt.Sprintf("%d.%d gal", tenths/10, tenths%10), "3.899", amount})
		}
		l.add(catEscrow, "Maintenance escrow deposit", nil, nil, nil, -10000, string(reads.EscrowDeposit))
		if r.IntN(10) == 0 {
			l.add(catEscrow, "Maintenance escrow withdrawal", nil, nil, nil, between(r, 200, 1200)*100, string(reads.EscrowWithdrawal))
		}
	}
	switch dtype {
	case domain.CompanyDriver:
		if r.IntN(2) == 0 {
			l.add(catDeduction, "Health insurance", nil, nil, nil, -6250, nil)
		}
		if r.IntN(3) == 0 {
			c := -between(r, 2500, 9000)
			l.add(catDeduction, "401(k) contribution", nil, nil, nil, c, nil)
		}
		if r.IntN(12) == 0 {
			t.bonus = 15000
			l.add(catAccessorial, "Safety bonus", nil, nil, nil, t.bonus, nil)
		}
	case domain.OwnerOperator:
		l.add(catDeduction, "Occupational accident insurance", nil, nil, nil, -4200, nil)
		l.add(catDeduction, "ELD subscription", nil, nil, nil, -2500, nil)
		if r.IntN(5) < 2 {
			l.add(catDeduction, "Truck lease payment", nil, nil, nil, -65000, nil)
		}
	default:
		if t.tripValue > 0 {
			t.serviceFee = -(t.tripValue * 2 / 100)
			l.add(catDeduction, "Service fee (2%)", nil, nil, nil, t.serviceFee, nil)
		}
		l.add(catDeduction, "Occupational accident insurance", nil, nil, nil, -4200, nil)
	}
	if r.IntN(15) == 0 {
		t.echecks = -between(r, 100, 400) * 100
		l.add(catDeduction, "EFS check advance", nil, nil, nil, t.echecks, nil)
	}
	if t.trips > 0 && r.IntN(8) == 0 {
		t.tolls = between(r, 800, 6500)
		l.add(catReimbursement, "Toll reimbursement", nil, nil, nil, t.tolls, nil,
			subLine{"Turnpike tolls", "1", money(t.tolls), t.tolls})
	}
	return t
}
