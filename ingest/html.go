package ingest

import (
	"bytes"
	"fmt"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlMaxDepth bounds the element nesting ParseHTML descends into; deeper
// elements of hostile documents are skipped.
const htmlMaxDepth = 512

// htmlPrescanSize is how much of a page is searched for a <meta> charset,
// as browsers do.
const htmlPrescanSize = 4096

// ParseHTML parses an HTML page into a Document.
//
// The charset is, in order: a byte order mark, charset (the Content-Type
// charset parameter, "" when unknown), a <meta charset> or http-equiv
// Content-Type in the first 4 KiB, else detection by DecodeBytes.
//
// Sections follow the document order: title (from <title>, also
// Document.Title), h1..h6, p, li, dt/dd as p, blockquote as quote, pre as
// pre, caption (table captions and figcaptions) and table rows. A table
// yields one table section per row, its cells joined with " | "; when the
// first row is all <th> header cells and a later row has as many cells,
// each cell is prefixed with its header ("Name: Prague | Population:
// 1.3M"), so that a row found by search reads on its own. Tables that hold
// headings, paragraphs or other tables are page layout and are read like
// <div>s. Text directly inside body, div, section and similar containers
// becomes p; text of inline elements joins its block.
//
// Dropped as non-content: script, style, noscript, template, head (except
// title), forms and their controls, iframes, svg, nav, menu, aside,
// header and footer outside article/main, elements that are hidden
// (hidden, aria-hidden="true", display:none, visibility:hidden) or have a
// navigation role (navigation, banner, contentinfo, search, menu), and
// MediaWiki/site chrome by id or class (toc, mw-editsection, navbox,
// reference superscripts like [1], catlinks, noprint, ...).
func ParseHTML(data []byte, charset string) (Document, error) {
	if charset == "" {
		charset = htmlMetaCharset(data)
	}
	s, err := DecodeBytes(data, charset)
	if err != nil {
		return Document{}, fmt.Errorf("parse html: %w", err)
	}
	root, err := html.Parse(strings.NewReader(s))
	if err != nil {
		return Document{}, fmt.Errorf("parse html: %w: %w", ErrCorrupt, err)
	}
	w := htmlWalker{}
	w.walk(root, 0, false)
	w.flush()
	doc := w.b.doc
	if w.title != "" {
		doc.Title = docCleanText(w.title)
		if doc.Title != "" {
			doc.Sections = append([]Section{{Type: "title", Content: doc.Title}}, doc.Sections...)
		}
	}
	return doc, nil
}

// htmlMetaCharset finds the charset declared by a <meta> tag near the
// start of data, "" when there is none.
func htmlMetaCharset(data []byte) string {
	head := bytes.ToLower(data[:min(len(data), htmlPrescanSize)])
	for {
		i := bytes.Index(head, []byte("<meta"))
		if i < 0 {
			return ""
		}
		head = head[i+len("<meta"):]
		end := bytes.IndexByte(head, '>')
		if end < 0 {
			return ""
		}
		tag := head[:end]
		if j := bytes.Index(tag, []byte("charset")); j >= 0 {
			v := bytes.TrimLeft(tag[j+len("charset"):], " \t\n\r")
			if len(v) > 0 && v[0] == '=' {
				v = bytes.TrimLeft(v[1:], " \t\n\r\"'")
				k := bytes.IndexAny(v, "\"'; \t\n\r/>")
				if k >= 0 {
					v = v[:k]
				}
				if len(v) > 0 {
					return string(v)
				}
			}
		}
		head = head[end:]
	}
}

// htmlWalker turns the parsed tree into sections.
type htmlWalker struct {
	b     docBuilder
	title string
	buf   strings.Builder
	// typ is the section type of the text in buf.
	typ string
}

// flush emits the pending inline text as a section of the current type.
func (w *htmlWalker) flush() {
	if w.buf.Len() == 0 {
		return
	}
	typ := w.typ
	if typ == "" {
		typ = "p"
	}
	w.b.add(typ, w.buf.String())
	w.buf.Reset()
}

// htmlBlockTypes maps elements that start a section to its type.
var htmlBlockTypes = map[atom.Atom]string{
	atom.H1: "h1", atom.H2: "h2", atom.H3: "h3", atom.H4: "h4", atom.H5: "h5", atom.H6: "h6",
	atom.P: "p", atom.Li: "li", atom.Dt: "p", atom.Dd: "p",
	atom.Blockquote: "quote", atom.Pre: "pre",
	atom.Caption: "caption", atom.Figcaption: "caption",
	atom.Address: "p", atom.Summary: "p",
}

// htmlContainers are block elements that separate text but have no
// section type of their own: their loose text takes the enclosing type.
var htmlContainers = map[atom.Atom]bool{
	atom.Html: true, atom.Body: true, atom.Div: true, atom.Section: true, atom.Article: true,
	atom.Main: true, atom.Ul: true, atom.Ol: true, atom.Dl: true, atom.Figure: true,
	atom.Details: true, atom.Center: true, atom.Fieldset: true, atom.Hr: true,
	atom.Header: true, atom.Footer: true, atom.Hgroup: true, atom.Tbody: true,
	atom.Thead: true, atom.Tfoot: true, atom.Tr: true, atom.Td: true, atom.Th: true,
	atom.Table: true, atom.Picture: true,
}

// htmlDropTags are elements whose content is never text of the page.
var htmlDropTags = map[atom.Atom]bool{
	atom.Head: true, atom.Script: true, atom.Style: true, atom.Noscript: true,
	atom.Template: true, atom.Nav: true, atom.Menu: true, atom.Aside: true,
	atom.Form: true, atom.Button: true, atom.Select: true, atom.Textarea: true,
	atom.Input: true, atom.Label: true, atom.Iframe: true, atom.Object: true,
	atom.Embed: true, atom.Svg: true, atom.Math: true, atom.Canvas: true,
	atom.Audio: true, atom.Video: true, atom.Map: true, atom.Dialog: true,
}

// htmlDropRoles are ARIA roles of site chrome.
var htmlDropRoles = map[string]bool{
	"navigation": true, "banner": true, "contentinfo": true, "search": true,
	"menu": true, "menubar": true, "toolbar": true, "dialog": true, "alert": true,
}

// htmlDropIDs are element ids of site chrome (MediaWiki and common CMSs).
var htmlDropIDs = map[string]bool{
	"toc": true, "mw-navigation": true, "mw-panel": true, "mw-head": true,
	"mw-head-base": true, "mw-page-base": true, "footer": true, "catlinks": true,
	"jump-to-nav": true, "sitesub": true, "contentsub": true, "sitenotice": true,
	"siteSub": true, "contentSub": true, "siteNotice": true, "header": true,
	"navigation": true, "nav": true, "sidebar": true, "menu": true, "cookie-banner": true,
	"breadcrumbs": true, "comments": true,
}

// htmlDropClasses are class names of site chrome and of decorations that
// are not text (edit links, reference markers).
var htmlDropClasses = map[string]bool{
	"toc": true, "mw-editsection": true, "navbox": true, "navbox-inner": true,
	"navbar": true, "vertical-navbox": true, "reference": true, "noprint": true,
	"catlinks": true, "printfooter": true, "mw-jump": true, "mw-jump-link": true,
	"mw-cite-backlink": true, "mw-indicators": true, "sr-only": true,
	"visually-hidden": true, "screen-reader-text": true, "skip-link": true,
	"breadcrumb": true, "breadcrumbs": true, "sidebar": true, "cookie-banner": true,
	"share": true, "social-share": true, "metadata": true, "mbox-small": true,
	// Navigation bars of documentation generators: DocBook XSL, Sphinx,
	// Javadoc, MkDocs Material.
	"navheader": true, "navfooter": true, "sphinxsidebar": true, "related": true,
	"topNav": true, "bottomNav": true, "subNav": true,
	"md-header": true, "md-footer": true, "md-sidebar": true,
}

// htmlDropped reports whether element n and its subtree are not content.
// inArticle says n is inside article or main, where header and footer
// belong to the text.
func htmlDropped(n *html.Node, inArticle bool) bool {
	if htmlDropTags[n.DataAtom] {
		return true
	}
	if (n.DataAtom == atom.Header || n.DataAtom == atom.Footer) && !inArticle {
		return true
	}
	for _, a := range n.Attr {
		switch a.Key {
		case "hidden":
			return true
		case "aria-hidden":
			if strings.EqualFold(strings.TrimSpace(a.Val), "true") {
				return true
			}
		case "role":
			if htmlDropRoles[strings.ToLower(strings.TrimSpace(a.Val))] {
				return true
			}
		case "id":
			if htmlDropIDs[a.Val] || htmlDropIDs[strings.ToLower(a.Val)] {
				return true
			}
		case "class":
			for c := range strings.FieldsSeq(a.Val) {
				if htmlDropClasses[c] {
					return true
				}
			}
		case "style":
			st := strings.ToLower(strings.Join(strings.Fields(a.Val), ""))
			if strings.Contains(st, "display:none") || strings.Contains(st, "visibility:hidden") {
				return true
			}
		}
	}
	return false
}

// walk emits the sections of n's subtree.
func (w *htmlWalker) walk(n *html.Node, depth int, inArticle bool) {
	if depth > htmlMaxDepth {
		return
	}
	switch n.Type {
	case html.TextNode:
		w.buf.WriteString(n.Data)
		return
	case html.DocumentNode:
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			w.walk(c, depth+1, inArticle)
		}
		return
	case html.ElementNode:
	default:
		return
	}
	if n.DataAtom == atom.Title && w.title == "" {
		w.title = htmlText(n, 0)
		return
	}
	if n.DataAtom == atom.Head {
		// Only the title of the head is content.
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && c.DataAtom == atom.Title {
				w.walk(c, depth+1, inArticle)
			}
		}
		return
	}
	if htmlDropped(n, inArticle) {
		return
	}
	if n.DataAtom == atom.Article || n.DataAtom == atom.Main {
		inArticle = true
	}
	switch n.DataAtom {
	case atom.Br:
		w.buf.WriteByte(' ')
		return
	case atom.Table:
		if !htmlLayoutTable(n) {
			w.flush()
			w.table(n, inArticle)
			return
		}
	}
	if typ, ok := htmlBlockTypes[n.DataAtom]; ok {
		w.flush()
		outer := w.typ
		w.typ = typ
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			w.walk(c, depth+1, inArticle)
		}
		w.flush()
		w.typ = outer
		return
	}
	if htmlContainers[n.DataAtom] {
		w.flush()
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			w.walk(c, depth+1, inArticle)
		}
		w.flush()
		return
	}
	// Inline element: its text joins the current block.
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c, depth+1, inArticle)
	}
}

// htmlLayoutTable reports whether table n lays out a page rather than
// holding data: it contains headings, paragraphs or another table.
func htmlLayoutTable(n *html.Node) bool {
	layout := false
	var visit func(c *html.Node, depth int)
	visit = func(c *html.Node, depth int) {
		if layout || depth > htmlMaxDepth {
			return
		}
		for ; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode {
				switch c.DataAtom {
				case atom.Table, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.P, atom.Article, atom.Section:
					layout = true
					return
				}
			}
			visit(c.FirstChild, depth+1)
		}
	}
	visit(n.FirstChild, 0)
	return layout
}

// table emits a data table: its captions and one section per row.
func (w *htmlWalker) table(n *html.Node, inArticle bool) {
	var header []string
	first := true
	var rows func(c *html.Node, depth int)
	rows = func(c *html.Node, depth int) {
		if depth > htmlMaxDepth {
			return
		}
		for ; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || htmlDropped(c, inArticle) {
				continue
			}
			switch c.DataAtom {
			case atom.Caption:
				w.b.add("caption", htmlText(c, 0))
			case atom.Tr:
				cells, allTH := htmlRowCells(c, inArticle)
				if len(cells) == 0 {
					continue
				}
				if first && allTH && len(cells) > 1 {
					header = cells
					first = false
					w.b.add("table", strings.Join(cells, " | "))
					continue
				}
				first = false
				if len(header) == len(cells) {
					for i := range cells {
						if cells[i] != "" && header[i] != "" {
							cells[i] = header[i] + ": " + cells[i]
						}
					}
				}
				w.b.add("table", strings.Join(htmlNonEmpty(cells), " | "))
			default:
				rows(c.FirstChild, depth+1)
			}
		}
	}
	rows(n.FirstChild, 0)
}

// htmlRowCells returns the cleaned text of the cells of row tr and whether
// all of them are header cells.
func htmlRowCells(tr *html.Node, inArticle bool) (cells []string, allTH bool) {
	allTH = true
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || (c.DataAtom != atom.Td && c.DataAtom != atom.Th) {
			continue
		}
		if htmlDropped(c, inArticle) {
			continue
		}
		if c.DataAtom == atom.Td {
			allTH = false
		}
		cells = append(cells, docCleanText(htmlTextIn(c, 0, inArticle)))
	}
	if len(htmlNonEmpty(cells)) == 0 {
		return nil, false
	}
	return cells, allTH
}

// htmlNonEmpty returns the non-empty strings of s.
func htmlNonEmpty(s []string) []string {
	out := s[:0:0]
	for _, v := range s {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// htmlText returns the text of n's subtree with dropped elements left out.
func htmlText(n *html.Node, depth int) string {
	return htmlTextIn(n, depth, true)
}

// htmlTextIn is htmlText for a node whose article context is known. Block
// boundaries inside become spaces.
func htmlTextIn(n *html.Node, depth int, inArticle bool) string {
	var sb strings.Builder
	var visit func(c *html.Node, depth int)
	visit = func(c *html.Node, depth int) {
		if depth > htmlMaxDepth {
			return
		}
		switch c.Type {
		case html.TextNode:
			sb.WriteString(c.Data)
			return
		case html.ElementNode:
			if htmlDropped(c, inArticle) {
				return
			}
			if c.DataAtom == atom.Br {
				sb.WriteByte(' ')
				return
			}
		default:
			return
		}
		_, block := htmlBlockTypes[c.DataAtom]
		if block || htmlContainers[c.DataAtom] {
			sb.WriteByte(' ')
		}
		for k := c.FirstChild; k != nil; k = k.NextSibling {
			visit(k, depth+1)
		}
		if block || htmlContainers[c.DataAtom] {
			sb.WriteByte(' ')
		}
	}
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		visit(k, depth+1)
	}
	return sb.String()
}
