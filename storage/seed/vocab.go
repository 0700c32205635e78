package seed

// Word lists the generators draw from. They are fixed so that the same scale
// always yields the same data.

type place struct{ city, state, zip string }

var places = []place{
	{"Dallas", "TX", "75201"}, {"Houston", "TX", "77002"}, {"San Antonio", "TX", "78205"},
	{"Amarillo", "TX", "79101"}, {"El Paso", "TX", "79901"}, {"Laredo", "TX", "78040"},
	{"Memphis", "TN", "38103"}, {"Nashville", "TN", "37203"}, {"Knoxville", "TN", "37902"},
	{"Atlanta", "GA", "30303"}, {"Savannah", "GA", "31401"}, {"Chicago", "IL", "60607"},
	{"Joliet", "IL", "60432"}, {"Indianapolis", "IN", "46204"}, {"Columbus", "OH", "43215"},
	{"Cincinnati", "OH", "45202"}, {"Louisville", "KY", "40202"}, {"St. Louis", "MO", "63101"},
	{"Kansas City", "MO", "64105"}, {"Omaha", "NE", "68102"}, {"Denver", "CO", "80202"},
	{"Phoenix", "AZ", "85004"}, {"Albuquerque", "NM", "87102"}, {"Los Angeles", "CA", "90021"},
	{"Fresno", "CA", "93721"}, {"Stockton", "CA", "95202"}, {"Reno", "NV", "89501"},
	{"Salt Lake City", "UT", "84101"}, {"Portland", "OR", "97209"}, {"Seattle", "WA", "98104"},
	{"Minneapolis", "MN", "55401"}, {"Des Moines", "IA", "50309"}, {"Charlotte", "NC", "28202"},
	{"Jacksonville", "FL", "32202"}, {"Orlando", "FL", "32801"}, {"Miami", "FL", "33130"},
	{"Harrisburg", "PA", "17101"}, {"Allentown", "PA", "18101"}, {"Newark", "NJ", "07102"},
	{"Toronto", "ON", "M5V 2T6"}, {"Monterrey", "NL", "64000"},
}

var streets = []string{
	"Industrial Blvd", "Commerce St", "Distribution Dr", "Logistics Pkwy", "Freight Way",
	"Warehouse Rd", "Terminal Ave", "Port Rd", "Rail Spur Ln", "Interstate Dr", "Cargo Ct",
	"Depot St", "Harbor Blvd", "Trade Center Dr", "Gateway Pkwy",
}

var firstNames = []string{
	"James", "Maria", "Robert", "Linda", "Michael", "Patricia", "David", "Jennifer", "Carlos",
	"Elena", "William", "Susan", "Jose", "Karen", "Thomas", "Nancy", "Daniel", "Lisa", "Miguel",
	"Angela", "Kevin", "Sandra", "Brian", "Donna", "Luis", "Rosa", "Anthony", "Michelle",
	"Marcus", "Tanya", "Dmitri", "Aisha", "Tyrone", "Mei", "Raj", "Olga",
}

var lastNames = []string{
	"Smith", "Johnson", "Garcia", "Martinez", "Brown", "Davis", "Rodriguez", "Wilson", "Anderson",
	"Taylor", "Thomas", "Hernandez", "Moore", "Jackson", "Lopez", "Lee", "Gonzalez", "Harris",
	"Clark", "Lewis", "Walker", "Young", "Allen", "King", "Wright", "Scott", "Nguyen", "Hill",
	"Flores", "Green", "Adams", "Nelson", "Baker", "Rivera", "Campbell", "Kowalski", "Okafor",
}

var companyWords = []string{
	"Summit", "Prairie", "Lone Star", "Blue Ridge", "Great Lakes", "Pacific", "Atlantic",
	"Heartland", "Frontier", "Redwood", "Granite", "Silver Creek", "Iron Horse", "Keystone",
	"Magnolia", "Cascade", "Sunbelt", "Midwest", "Coastal", "Canyon",
}

var customerSuffixes = []string{
	"Foods", "Packaging", "Building Supply", "Beverages", "Paper Co", "Steel", "Produce",
	"Home Goods", "Auto Parts", "Chemicals", "Plastics", "Furniture",
}

var carrierSuffixes = []string{"Transport", "Trucking", "Freight Lines", "Carriers", "Logistics", "Express"}

var commodities = []string{
	"Frozen poultry", "Canned goods", "Lumber", "Steel coils", "Paper rolls", "Beverages",
	"Fresh produce", "Auto parts", "Building materials", "Consumer electronics", "Furniture",
	"Packaging materials", "Dry grocery", "Plastic resin",
}

var loadSources = []string{"EDI", "Load Board", "Email", "Customer Portal", "API", "Phone"}

var trailerMakes = []string{"Utility", "Wabash", "Great Dane", "Hyundai Translead", "Stoughton", "Vanguard", "Fontaine"}

var insurers = []string{"Progressive Commercial", "Great West Casualty", "Sentry", "Travelers", "Northland"}

var noteTypes = []string{"General", "Maintenance", "Dispatch", "Safety", "Billing"}

var noteTexts = []string{
	"Dock doors 4-9 reserved for inbound.", "Call 30 minutes before arrival.",
	"Lumper fee paid at the dock, keep the receipt.", "Gate closes at 17:00 on Fridays.",
	"Tire pressure checked, all within spec.", "Reefer unit serviced.",
	"Driver reported a slow check-in.", "Appointment required for all deliveries.",
	"Seal must be intact on arrival.", "Overnight parking not allowed on site.",
}

var userRoles = []string{"Admin", "Dispatcher", "Driver", "Biller", "SalesAgent", "DataEntry", "Safety", "OperationManager"}

// rolePermissions are the permission strings a role carries (the API contract leaves
// the set open; these mirror the admin portal's areas).
var rolePermissions = map[string][]string{
	"Admin":            {"loads.view", "loads.edit", "billing.view", "billing.edit", "settlements.view", "settlements.edit", "users.manage", "api.manage"},
	"Dispatcher":       {"loads.view", "loads.edit", "trips.dispatch", "drivers.view"},
	"Driver":           {"trips.view", "documents.upload"},
	"Biller":           {"loads.view", "billing.view", "billing.edit", "invoices.send"},
	"SalesAgent":       {"loads.view", "customers.view", "quotes.edit"},
	"DataEntry":        {"loads.view", "loads.edit", "documents.upload"},
	"Safety":           {"drivers.view", "drivers.edit", "equipment.view", "equipment.edit"},
	"OperationManager": {"loads.view", "loads.edit", "trips.dispatch", "settlements.view", "reports.view"},
}

var referenceTypes = []string{"GPS Unit", "Lease Contract", "Asset Tag", "Telematics ID"}
