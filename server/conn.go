package server

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// Connection limits of the HTTP server.
const (
	// maxHeaderBytes bounds the request line and the headers together
	// (fasthttp's ReadBufferSize): a longer request line answers 414,
	// longer headers 431.
	maxHeaderBytes = 64 << 10

	// lingerTimeout and lingerBytes bound how long, and how much of a
	// request body it will not read, the server keeps reading and
	// discarding after it answered and closed its side of a connection
	// (see lingerConn).
	lingerTimeout = 5 * time.Second
	lingerBytes   = 256 << 20
)

// lingerListener hands out connections that close gracefully.
type lingerListener struct{ net.Listener }

func (l lingerListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		return &lingerConn{TCPConn: tc}, nil
	}
	return c, nil
}

// lingerConn closes a TCP connection the graceful way: it sends its FIN
// after the answer, then reads and discards what the client still sends
// (bounded by lingerTimeout and lingerBytes) before it closes for good.
// Closing a socket with unread data makes the kernel send a reset, and a
// client that writes a whole oversize body before reading would get
// ECONNRESET instead of the 413 already sent to it.
type lingerConn struct {
	*net.TCPConn
	once sync.Once
}

func (c *lingerConn) Close() error {
	c.once.Do(func() {
		if err := c.TCPConn.CloseWrite(); err != nil {
			c.TCPConn.Close()
			return
		}
		go func() {
			_ = c.TCPConn.SetReadDeadline(time.Now().Add(lingerTimeout))
			_, _ = io.CopyN(io.Discard, c.TCPConn, lingerBytes)
			c.TCPConn.Close()
		}()
	})
	return nil
}

// requestError answers a request fasthttp could not read, in JSON, without
// echoing any of it.
func requestError(ctx *fasthttp.RequestCtx, err error, maxBody int) {
	var small *fasthttp.ErrSmallBuffer
	var netErr net.Error
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		writeErrorStatus(ctx, 413, "the request body is larger than the limit of "+strconv.Itoa(maxBody)+" bytes (server flag --max-body)", map[string]any{"limit_bytes": maxBody})
	case errors.As(err, &small):
		if requestLineEnded(err) {
			writeErrorStatus(ctx, 431, "the request headers are too large: the request line and headers may take "+strconv.Itoa(maxHeaderBytes)+" bytes together", map[string]any{"limit_bytes": maxHeaderBytes})
		} else {
			writeErrorStatus(ctx, 414, "the request line (method and URL) is too long: the request line and headers may take "+strconv.Itoa(maxHeaderBytes)+" bytes together; send long parameters in a POST body", map[string]any{"limit_bytes": maxHeaderBytes})
		}
	case errors.As(err, &netErr) && netErr.Timeout():
		writeErrorStatus(ctx, 408, "the request was not received in time", nil)
	default:
		writeErrorStatus(ctx, 400, "malformed HTTP request: "+requestErrorKind(err), nil)
	}
}

// requestLineEnded reports whether the buffer of a too-large request, as
// quoted at the start of fasthttp's error message, holds the end of the
// request line: then the headers are what is too large.
func requestLineEnded(err error) bool {
	msg := err.Error()
	i := strings.Index(msg, "contents: ")
	if i < 0 {
		return false
	}
	q, qerr := strconv.QuotedPrefix(msg[i+len("contents: "):])
	if qerr != nil {
		return false
	}
	s, _ := strconv.Unquote(q)
	return strings.Contains(s, "\n")
}

// requestErrorKind names what is wrong with a request fasthttp could not
// parse, without the request's bytes (fasthttp's messages quote them).
func requestErrorKind(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, ": buffer size="); i >= 0 {
		msg = msg[:i]
	}
	if i := strings.Index(msg, "contents:"); i >= 0 {
		msg = msg[:i]
	}
	if len(msg) > 200 {
		msg = msg[:200]
	}
	return strings.TrimSpace(msg)
}

// requestLogger receives fasthttp's log lines ("error when serving
// connection ...") and writes them to the server's logger without the
// request bytes fasthttp quotes (after "buffer size=" or "contents:", and
// the offending value, as in `invalid header value "..."`), which hold
// headers such as Authorization.
type requestLogger struct{ log *slog.Logger }

// quoted matches a Go-quoted string of a fasthttp message.
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// Printf logs one fasthttp message, cut before the quoted request bytes
// and with every quoted value after the connection's addresses elided.
func (l requestLogger) Printf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for _, cut := range []string{": buffer size=", "contents:"} {
		if i := strings.Index(msg, cut); i >= 0 {
			msg = msg[:i]
		}
	}
	if i := strings.Index(msg, "\": "); i >= 0 {
		msg = msg[:i+3] + quoted.ReplaceAllString(msg[i+3:], `"…"`)
	}
	if len(msg) > 300 {
		msg = msg[:300]
	}
	l.log.Warn("http: " + strings.TrimSpace(msg))
}
