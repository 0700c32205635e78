package release

import (
	"regexp"
	"strings"
)

// ContractMarker, in a comment inside or just before a statement, says
// that what the statement removes or tightens is no longer used by the
// previous release (docs/deploy.md, "Migrations: expand, then contract").
const ContractMarker = "contract:"

// contracting are the statements an instance of the previous release may
// trip over: they remove or rename what it reads or writes, change a
// column's type, or refuse rows it writes (a NOT NULL it does not fill).
var contracting = []*regexp.Regexp{
	regexp.MustCompile(`(?is)\bDROP\s`),
	regexp.MustCompile(`(?is)\bRENAME\b`),
	regexp.MustCompile(`(?is)\bALTER\s+(COLUMN\s+)?\S+\s+(SET\s+DATA\s+)?TYPE\b`),
	regexp.MustCompile(`(?is)\bSET\s+NOT\s+NULL\b`),
	regexp.MustCompile(`(?is)\bADD\s+(COLUMN\s+)?(IF\s+NOT\s+EXISTS\s+)?[^,;]*\bNOT\s+NULL\b`),
}

// notNullWithDefault is an added NOT NULL column the previous release can
// leave out of its INSERTs: it has a default.
var notNullWithDefault = regexp.MustCompile(`(?is)\bADD\s+(COLUMN\s+)?(IF\s+NOT\s+EXISTS\s+)?[^,;]*\bNOT\s+NULL\b[^,;]*\bDEFAULT\b|\bADD\s+(COLUMN\s+)?(IF\s+NOT\s+EXISTS\s+)?[^,;]*\bDEFAULT\b[^,;]*\bNOT\s+NULL\b`)

// Contracting returns the statements of a migration that contract the
// schema without a ContractMarker: each breaks the previous release while
// both run against one database during a rolling upgrade.
func Contracting(sql string) []string {
	var bad []string
	for _, st := range statements(sql) {
		if strings.Contains(st.comments, ContractMarker) {
			continue
		}
		for i, re := range contracting {
			if re.MatchString(st.code) && !(i == len(contracting)-1 && notNullWithDefault.MatchString(st.code)) {
				bad = append(bad, strings.TrimSpace(st.code))
				break
			}
		}
	}
	return bad
}

type statement struct{ code, comments string }

// statements splits sql at the semicolons outside quotes, dollar-quoted
// bodies and comments; a statement's code leaves out its comments and the
// contents of its string literals and bodies (a DROP inside a function's
// body runs only when that function is called, and says so itself).
func statements(sql string) []statement {
	var out []statement
	var code, comments strings.Builder
	flush := func() {
		if strings.TrimSpace(code.String()) != "" {
			out = append(out, statement{code.String(), comments.String()})
		}
		code.Reset()
		comments.Reset()
	}
	for i := 0; i < len(sql); {
		rest := sql[i:]
		switch {
		case strings.HasPrefix(rest, "--"):
			end := strings.IndexByte(rest, '\n')
			if end < 0 {
				end = len(rest)
			}
			comments.WriteString(rest[:end] + "\n")
			i += end
		case strings.HasPrefix(rest, "/*"):
			end := strings.Index(rest, "*/")
			if end < 0 {
				end = len(rest) - 2
			}
			comments.WriteString(rest[:end+2] + "\n")
			i += end + 2
		case rest[0] == '\'':
			end := 1
			for end < len(rest) && (rest[end] != '\'' || (end+1 < len(rest) && rest[end+1] == '\'')) {
				if rest[end] == '\'' {
					end++ // '' inside the literal
				}
				end++
			}
			code.WriteString("''")
			i += min(end+1, len(rest))
		case dollarTag.MatchString(rest):
			tag := dollarTag.FindString(rest)
			end := strings.Index(rest[len(tag):], tag)
			if end < 0 {
				end = len(rest) - 2*len(tag)
			}
			code.WriteString(tag + tag)
			i += min(len(tag)+end+len(tag), len(rest))
		case rest[0] == ';':
			flush()
			i++
		default:
			code.WriteByte(rest[0])
			i++
		}
	}
	flush()
	return out
}

var dollarTag = regexp.MustCompile(`^\$[A-Za-z_]*\$`)
