package seed

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/haulgraph/haulgraph/domain/reads"
)

// users: every role and status, mostly Internal; permissions follow the role.
func (s *seeder) users(ctx context.Context) error {
	t := newTable("users", "id", "tenant_id", "user_name", "name", "email", "phone", "user_type", "role",
		"company_code", "status", "permissions", "created_at", "modified_at")
	b := s.batch(t)
	ru := newRows("user")
	for i := 0; i < s.n.users; i++ {
		r := ru.at(i)
		first, last := oneOf(r, firstNames), oneOf(r, lastNames)
		role := userRoles[i%len(userRoles)]
		if i >= len(userRoles) {
			role = oneOf(r, userRoles)
		}
		status := reads.UserStatuses[i%len(reads.UserStatuses)]
		if i >= len(reads.UserStatuses) {
			switch x := r.IntN(20); {
			case x < 2:
				status = "Disabled"
			case x < 3:
				status = "Deleted"
			default:
				status = "Active"
			}
		}
		userType := "Internal"
		if role == "SalesAgent" && r.IntN(2) == 0 || r.IntN(12) == 0 {
			userType = "External"
		}
		created := day(2022, 1, 1).Add(time.Duration(r.IntN(3*365*24*60)) * time.Minute)
		modified := created.Add(time.Duration(r.IntN(400*24*60)) * time.Minute)
		login := strings.ToLower(first[:1] + last + fmt.Sprint(i+1))
		t.add(s.ids.of("user", i), s.tid, login, first+" "+last,
			strings.ToLower(first+"."+last)+fmt.Sprintf("%d@%s.example", i+1, s.ids.slug), phone(r),
			userType, role, fmt.Sprintf("SUB%d", 1+i%s.n.subsidiaries), string(status),
			rolePermissions[role], created, modified)
		if err := b.maybeFlush(ctx); err != nil {
			return err
		}
		s.prog.step(s.ph.users, 1)
	}
	return b.flush(ctx)
}
