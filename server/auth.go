package server

import (
	"bufio"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/valyala/fasthttp"
	"golang.org/x/crypto/bcrypt"
)

// User is an authenticated principal.
type User struct {
	Name string
	Role string // "user" or "admin"
	hash []byte
}

func (u *User) admin() bool { return u != nil && u.Role == "admin" }

// owner returns the owner a request acts as: the user, or for an admin the
// user named by the "owner" query parameter.
func (u *User) owner(ctx *fasthttp.RequestCtx) string {
	if u == nil {
		return ""
	}
	if u.admin() {
		if o := ctx.QueryArgs().Peek("owner"); len(o) > 0 {
			return string(o)
		}
	}
	return u.Name
}

// Users holds credentials: bcrypt hashes per user name. Successful checks
// are cached by a SHA-256 of the Authorization header, so bcrypt's cost is
// paid once per credential, not per request.
type Users struct {
	byName map[string]*User
	cache  sync.Map // sha256(header) → *User
}

// ParseUsers reads credentials, one per line: "name:bcrypt-hash[:role]"
// (role "user" or "admin"); blank lines and lines starting with # are
// ignored. Hashes come from `htpasswd -bnBC 10 name pass` or
// `najdi hash-password`.
func ParseUsers(r io.Reader) (*Users, error) {
	u := &Users{byName: map[string]*User{}}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		parts := strings.Split(l, ":")
		if len(parts) < 2 || len(parts) > 3 || parts[0] == "" {
			return nil, fmt.Errorf("users line %d: want name:bcrypt-hash[:role]", line)
		}
		role := "user"
		if len(parts) == 3 {
			role = parts[2]
		}
		if role != "user" && role != "admin" {
			return nil, fmt.Errorf("users line %d: role %q must be user or admin", line, role)
		}
		if _, err := bcrypt.Cost([]byte(parts[1])); err != nil {
			return nil, fmt.Errorf("users line %d: %q is not a bcrypt hash: %w", line, parts[0], err)
		}
		u.byName[parts[0]] = &User{Name: parts[0], Role: role, hash: []byte(parts[1])}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read users: %w", err)
	}
	return u, nil
}

// Len returns the number of users.
func (u *Users) Len() int {
	if u == nil {
		return 0
	}
	return len(u.byName)
}

// check verifies a Basic Authorization header.
func (u *Users) check(header []byte) (*User, bool) {
	sum := sha256.Sum256(header)
	if v, ok := u.cache.Load(sum); ok {
		return v.(*User), true
	}
	h := string(header)
	const prefix = "Basic "
	if len(h) < len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return nil, false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(h[len(prefix):]))
	if err != nil {
		return nil, false
	}
	name, pass, ok := strings.Cut(string(raw), ":")
	if !ok {
		return nil, false
	}
	usr := u.byName[name]
	if usr == nil {
		// Spend comparable time on unknown users.
		_ = bcrypt.CompareHashAndPassword([]byte("$2a$10$7EqJtq98hPqEX7fNZaFWoOhi5BWX4Z5Z5Z5Z5Z5Z5Z5Z5Z5Z5Z5Z5"), []byte(pass))
		return nil, false
	}
	if bcrypt.CompareHashAndPassword(usr.hash, []byte(pass)) != nil {
		return nil, false
	}
	u.cache.Store(sum, usr)
	return usr, true
}

// authenticate returns the request's user. Without configured users every
// request is the anonymous owner (nil user). It writes 401 on failure.
func (s *Server) authenticate(ctx *fasthttp.RequestCtx) (*User, bool) {
	if s.cfg.Users.Len() == 0 {
		return nil, true
	}
	h := ctx.Request.Header.Peek("Authorization")
	if len(h) == 0 {
		ctx.Response.Header.Set("WWW-Authenticate", `Basic realm="najdi"`)
		writeErrorStatus(ctx, 401, "authentication required: send Authorization: Basic base64(user:password)", nil)
		return nil, false
	}
	u, ok := s.cfg.Users.check(h)
	if !ok {
		ctx.Response.Header.Set("WWW-Authenticate", `Basic realm="najdi"`)
		writeErrorStatus(ctx, 401, "invalid credentials", nil)
		return nil, false
	}
	return u, true
}
