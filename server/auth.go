package server

import (
	"bufio"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

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

// Users holds credentials: bcrypt hashes per user name. A successful
// check is cached per user as an HMAC-SHA256 (under a key drawn at start)
// of the password, compared in constant time, so bcrypt's cost is paid
// once per credential, not per request, and never by a request with
// cached valid credentials.
type Users struct {
	byName map[string]*User
	cache  sync.Map // name → [sha256.Size]byte HMAC of the password
	macKey [32]byte
	// dummy is a hash of the users' highest cost, compared for unknown
	// user names so that they take as long as known ones.
	dummy []byte
}

// ParseUsers reads credentials, one per line: "name:bcrypt-hash[:role]"
// (role "user" or "admin"); blank lines and lines starting with # are
// ignored. Hashes come from `htpasswd -bnBC 10 name pass` or
// `najdi hash-password`.
func ParseUsers(r io.Reader) (*Users, error) {
	u := &Users{byName: map[string]*User{}}
	if _, err := rand.Read(u.macKey[:]); err != nil {
		return nil, fmt.Errorf("users: %w", err)
	}
	cost := bcrypt.MinCost
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
		c, err := bcrypt.Cost([]byte(parts[1]))
		if err != nil {
			return nil, fmt.Errorf("users line %d: %q is not a bcrypt hash: %w", line, parts[0], err)
		}
		cost = max(cost, c)
		u.byName[parts[0]] = &User{Name: parts[0], Role: role, hash: []byte(parts[1])}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read users: %w", err)
	}
	if len(u.byName) > 0 {
		var pw [16]byte
		_, _ = rand.Read(pw[:])
		d, err := bcrypt.GenerateFromPassword(pw[:], cost)
		if err != nil {
			return nil, fmt.Errorf("users: %w", err)
		}
		u.dummy = d
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

// parseBasic returns the user name and password of a Basic
// Authorization header.
func parseBasic(header []byte) (name, pass string, ok bool) {
	h := string(header)
	const prefix = "Basic "
	if len(h) < len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return "", "", false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(h[len(prefix):]))
	if err != nil {
		return "", "", false
	}
	return strings.Cut(string(raw), ":")
}

func (u *Users) mac(pass string) [sha256.Size]byte {
	m := hmac.New(sha256.New, u.macKey[:])
	m.Write([]byte(pass))
	var sum [sha256.Size]byte
	m.Sum(sum[:0])
	return sum
}

// cached returns the user when name's password was verified before and
// pass is the same (compared in constant time), else nil. It costs no
// bcrypt.
func (u *Users) cached(name, pass string) *User {
	v, ok := u.cache.Load(name)
	if !ok {
		return nil
	}
	want := v.([sha256.Size]byte)
	got := u.mac(pass)
	if subtle.ConstantTimeCompare(want[:], got[:]) != 1 {
		return nil
	}
	return u.byName[name]
}

// verify checks a password with bcrypt and caches a success. Unknown user
// names cost a comparison with a dummy hash too.
func (u *Users) verify(name, pass string) (*User, bool) {
	usr := u.byName[name]
	if usr == nil {
		_ = bcrypt.CompareHashAndPassword(u.dummy, []byte(pass))
		return nil, false
	}
	if bcrypt.CompareHashAndPassword(usr.hash, []byte(pass)) != nil {
		return nil, false
	}
	u.cache.Store(name, u.mac(pass))
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
	name, pass, ok := parseBasic(h)
	if !ok {
		ctx.Response.Header.Set("WWW-Authenticate", `Basic realm="najdi"`)
		writeErrorStatus(ctx, 401, "invalid credentials: send Authorization: Basic base64(user:password)", nil)
		return nil, false
	}
	us := s.cfg.Users
	if u := us.cached(name, pass); u != nil {
		return u, true
	}
	// Failed logins are limited per client and per (known) user name;
	// a limited request is refused before its password is looked at.
	keys := []string{clientKey(ctx.RemoteIP())}
	if us.byName[name] != nil {
		keys = append(keys, "user:"+name)
	}
	if ok, wait := s.logins.allow(keys...); !ok {
		tooManyRequests(ctx, "login_failures", wait, fmt.Sprintf(
			"too many failed logins from this client or for this user: at most %d per minute (server flag --login-failures-per-minute); retry in %d s",
			s.cfg.LoginFailuresPerMinute, retrySeconds(wait)))
		return nil, false
	}
	// bcrypt runs on at most BcryptWorkers CPUs at once.
	timer := time.NewTimer(bcryptWait)
	select {
	case s.bcrypt <- struct{}{}:
		timer.Stop()
	case <-timer.C:
		tooManyRequests(ctx, "password_checks", time.Second, "the server is busy checking passwords; retry shortly")
		return nil, false
	}
	u, ok := us.verify(name, pass)
	<-s.bcrypt
	if !ok {
		s.logins.fail(keys...)
		ctx.Response.Header.Set("WWW-Authenticate", `Basic realm="najdi"`)
		writeErrorStatus(ctx, 401, "invalid credentials", nil)
		return nil, false
	}
	return u, true
}
