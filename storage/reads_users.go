package storage

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

var userKeys = keyset{cols: []string{"u.user_name", "u.id"}, types: []string{"text", "uuid"}}

type userRow struct {
	ID          uuid.UUID `db:"id"`
	UserName    string    `db:"user_name"`
	Name        string    `db:"name"`
	Email       string    `db:"email"`
	Phone       string    `db:"phone"`
	UserType    string    `db:"user_type"`
	Role        string    `db:"role"`
	CompanyCode string    `db:"company_code"`
	Status      string    `db:"status"`
	Permissions []string  `db:"permissions"`
	CreatedAt   time.Time `db:"created_at"`
	ModifiedAt  time.Time `db:"modified_at"`
}

// likeEscaper makes a keyword literal inside LIKE (the trigram index serves
// '%kw%').
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// SearchUsers answers docs/api-contract.md §4.6: the keyword matches user name, name or email
// (case-insensitive substring); ordered by user name.
func (r *Reads) SearchUsers(ctx context.Context, tenant uuid.UUID, q reads.UserQuery) (domain.Page[reads.User], error) {
	var page domain.Page[reads.User]
	args := params{tenant}
	from := "FROM users u WHERE u.tenant_id = $1"
	if q.Keyword != "" {
		from += " AND u.search_text LIKE " + args.bind("%"+likeEscaper.Replace(strings.ToLower(q.Keyword))+"%")
	}
	counted := len(args)
	win, err := userKeys.window(q.Window, &args)
	if err != nil {
		return page, err
	}
	var rows []userRow
	err = r.in(ctx, tenant, func(ctx context.Context, tx *Tx) error {
		count(tx, &page.Total, from, args[:counted]...)
		selectRows(tx, &rows, `SELECT u.id, u.user_name, u.name, u.email, u.phone, u.user_type, u.role,
			u.company_code, u.status, u.permissions, u.created_at, u.modified_at `+from+" "+win.where+" "+win.tail,
			args...)
		return nil
	})
	if err != nil {
		return domain.Page[reads.User]{}, err
	}
	rows, page.HasMore = trim(rows, win.limit)
	page.Items = make([]reads.User, len(rows))
	for i, u := range rows {
		page.Items[i] = reads.User{
			ID: u.ID, UserName: u.UserName, Name: u.Name, Email: u.Email, Phone: u.Phone, UserType: u.UserType,
			Role: u.Role, CompanyCode: u.CompanyCode, Status: reads.UserStatus(u.Status),
			Permissions: nonNil(u.Permissions), CreatedAt: u.CreatedAt, ModifiedAt: u.ModifiedAt,
		}
		page.Cursors = append(page.Cursors, encodeCursor(u.UserName, u.ID.String()))
	}
	return page, nil
}
