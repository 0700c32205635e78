package seed

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/haulgraph/haulgraph/domain"
)

// Reference data: subsidiaries, fleets, vendors, customers, carriers, drivers
// and trucks — the rows everything else points to.

var subsidiaryNames = []string{"Freight Services", "Logistics", "Dedicated"}

var fleetNames = []struct{ name, prefix string }{
	{"Dry Van East", "DVE"}, {"Dry Van West", "DVW"}, {"Reefer", "RF"}, {"Flatbed", "FB"}, {"Regional", "RG"},
}

func (s *seeder) reference(ctx context.Context) error {
	subs := newTable("subsidiaries", "id", "tenant_id", "name")
	fleets := newTable("fleets", "id", "tenant_id", "name", "invoice_number_prefix")
	vendors := newTable("vendors", "id", "tenant_id", "name", "remit_street", "remit_city", "remit_state", "remit_zip", "remit_email", "remit_phone")
	customers := newTable("customers", "id", "tenant_id", "name", "email_addresses", "phone_numbers",
		"billing_street", "billing_city", "billing_state", "billing_zip",
		"shipping_street", "shipping_city", "shipping_state", "shipping_zip")
	carriers := newTable("carriers", "id", "tenant_id", "name", "mc_number", "dot_number")
	drivers := newTable("drivers", "id", "tenant_id", "name", "type", "company_name", "subsidiary_id", "fleet_id")
	trucks := newTable("trucks", "id", "tenant_id", "number")
	b := s.batch(subs, fleets, vendors, customers, carriers, drivers, trucks)

	base := displayName(s.ids.slug)
	for i := 0; i < s.n.subsidiaries; i++ {
		id := s.ids.of("subsidiary", i)
		subs.add(id, s.tid, base+" "+subsidiaryNames[i%len(subsidiaryNames)])
		s.res.SubsidiaryIDs = append(s.res.SubsidiaryIDs, id)
	}
	s.res.SubsidiaryID = s.res.SubsidiaryIDs[0]
	for i := 0; i < s.n.fleets; i++ {
		f := fleetNames[i%len(fleetNames)]
		fleets.add(s.ids.of("fleet", i), s.tid, f.name, f.prefix)
	}
	rv := newRows("vendor")
	for i := 0; i < s.n.vendors; i++ {
		r := rv.at(i)
		p := places[r.IntN(len(places))]
		name := base + " " + subsidiaryNames[i%len(subsidiaryNames)]
		if i >= len(subsidiaryNames) {
			name = oneOf(r, companyWords) + " Factoring"
		}
		vendors.add(s.ids.of("vendor", i), s.tid, name, streetAddress(r), p.city, p.state, p.zip,
			fmt.Sprintf("remit%d@%s.example", i+1, s.ids.slug), phone(r))
	}
	s.prog.step(s.ph.reference, s.n.subsidiaries+s.n.fleets+s.n.vendors)

	rc := newRows("customer")
	for i := 0; i < s.n.customers; i++ {
		r := rc.at(i)
		name := customerName(r, i)
		domainName := strings.ToLower(strings.NewReplacer(" ", "", ".", "").Replace(name)) + ".example"
		emails := []string{"ap@" + domainName}
		if r.IntN(3) == 0 {
			emails = append(emails, "logistics@"+domainName)
		}
		phones := []string{phone(r)}
		if r.IntN(4) == 0 {
			phones = append(phones, phone(r))
		}
		bill, ship := places[r.IntN(len(places))], places[r.IntN(len(places))]
		customers.add(s.ids.of("customer", i), s.tid, name, emails, phones,
			streetAddress(r), bill.city, bill.state, bill.zip,
			streetAddress(r), ship.city, ship.state, ship.zip)
		if err := b.maybeFlush(ctx); err != nil {
			return err
		}
	}
	s.prog.step(s.ph.reference, s.n.customers)

	rk := newRows("carrier")
	for i := 0; i < s.n.carriers; i++ {
		r := rk.at(i)
		carriers.add(s.ids.of("carrier", i), s.tid, oneOf(r, companyWords)+" "+oneOf(r, carrierSuffixes),
			fmt.Sprintf("MC%06d", 100000+r.IntN(900000)), fmt.Sprintf("%07d", 1000000+r.IntN(9000000)))
	}
	s.res.CarrierID = s.ids.of("carrier", 0)
	s.prog.step(s.ph.reference, s.n.carriers)

	rd := newRows("driver")
	for i := 0; i < s.n.drivers; i++ {
		r := rd.at(i)
		first, last := oneOf(r, firstNames), oneOf(r, lastNames)
		t := driverType(i)
		var company any
		if t == domain.OwnerOperator {
			company = last + " " + oneOf(r, carrierSuffixes) + " LLC"
		}
		drivers.add(s.ids.of("driver", i), s.tid, first+" "+last, string(t), company,
			s.ids.of("subsidiary", i%s.n.subsidiaries), opt(s.ids.of("fleet", i%s.n.fleets), i%7 != 6))
	}
	s.res.DriverID = s.ids.of("driver", 0)
	s.prog.step(s.ph.reference, s.n.drivers)

	for i := 0; i < s.n.trucks; i++ {
		trucks.add(s.ids.of("truck", i), s.tid, fmt.Sprintf("TRK-%04d", 101+i))
	}
	s.prog.step(s.ph.reference, s.n.trucks)
	return b.flush(ctx)
}

// driverType spreads drivers 6:2:2 over company drivers, owner operators and
// contractors; driver 0 is a company driver.
func driverType(d int) domain.DriverType {
	switch d % 10 {
	case 6, 7:
		return domain.OwnerOperator
	case 8, 9:
		return domain.ContractDriver
	}
	return domain.CompanyDriver
}

func customerName(r *rand.Rand, i int) string {
	return companyWords[i%len(companyWords)] + " " + oneOf(r, customerSuffixes)
}

func streetAddress(r *rand.Rand) string {
	return fmt.Sprintf("%d %s", 100+r.IntN(9800), oneOf(r, streets))
}

func phone(r *rand.Rand) string {
	return fmt.Sprintf("+1-%03d-555-%04d", 201+r.IntN(780), r.IntN(10000))
}
