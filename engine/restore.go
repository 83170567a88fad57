package engine

// restoreQuery restores Czech diacritics in the query when the request, or
// else the first collection's search_config, asks for it.
func (e *Engine) restoreQuery(p *plan) error {
	on := p.colls[0].config().SearchConfig.RestoreDiacritics
	if p.req.RestoreDiacritics != nil {
		on = *p.req.RestoreDiacritics
	}
	if !on || p.query == "" {
		return nil
	}
	return invalidField("restore_diacritics", "not available yet")
}
