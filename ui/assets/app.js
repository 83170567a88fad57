// najdi console: a single page over the JSON API. No framework, no build
// step, no external resources (see ui/doc.go for why).
'use strict';

// ---------------------------------------------------------------- texts

const TEXTS = {
  en: {
    'skip': 'Skip to content', 'language': 'Language',
    'nav.collections': 'Collections', 'nav.upload': 'Upload', 'nav.search': 'Search', 'nav.nlu': 'NLU',
    'signed.as': 'Signed in as {0}', 'signed.none': 'No authentication (loopback)',
    'loading': 'Loading…', 'save': 'Save', 'cancel': 'Cancel', 'delete': 'Delete', 'edit': 'Edit', 'create': 'Create',
    'remove': 'Remove', 'none': '—', 'copy': 'Copy', 'copied': 'Copied', 'error': 'Error',
    'coll.title': 'Collections', 'coll.new': 'New collection', 'coll.empty': 'No collections yet. Create one to upload documents.',
    'coll.id': 'Collection', 'coll.docs': 'Documents', 'coll.size': 'Size', 'coll.lang': 'Language', 'coll.embedding': 'Embedding model',
    'coll.fields': 'Declared fields', 'coll.updated': 'Updated', 'coll.actions': 'Actions', 'coll.upload': 'Upload', 'coll.search': 'Search',
    'coll.confirmDelete': 'Delete collection "{0}" and its {1} documents? This cannot be undone.',
    'coll.deleted': 'Collection {0} deleted', 'coll.saved': 'Collection {0} saved', 'coll.created': 'Collection {0} created',
    'coll.editTitle': 'Edit collection {0}', 'coll.newTitle': 'New collection',
    'coll.idHelp': 'lowercase letters, digits, - and _ (at most 64)',
    'coll.restore': 'Restore Czech diacritics in queries', 'coll.fulltext': 'Keyword search and filters (fulltext)',
    'coll.model': 'Embedding model', 'coll.model.default': 'default (installed model)', 'coll.model.none': 'none (keyword only)', 'coll.model.named': 'installed model by name',
    'coll.modelName': 'Model name', 'coll.maxTokens': 'Summary token budget', 'coll.tokenizer': 'Summary tokenizer',
    'coll.fieldsTitle': 'Fields and their types', 'coll.fieldName': 'Field', 'coll.fieldType': 'Type', 'coll.multi': 'several values (split on |)',
    'coll.addField': 'Add field', 'coll.json': 'Configuration sent (PUT, editable; the API replaces the whole configuration, documents are kept)',
    'coll.types': 'enum_text: filterable and searched · enum: filterable · number: ranges · text: searched only',
    'coll.badJSON': 'The configuration is not valid JSON: {0}',
    'up.title': 'Upload documents', 'up.collection': 'Collection', 'up.idField': 'Record id property (optional)',
    'up.drop': 'Drop files here, or press Enter to choose files', 'up.formats': 'Text, Markdown, HTML, DOCX, PDF, JSON, JSONL, CSV, TSV, XLSX, ODS: one upload job per file.',
    'up.upload': 'Upload', 'up.ingest': 'Ingest', 'up.waiting': 'waiting', 'up.uploading': 'uploading {0} of {1}',
    'up.uploaded': 'uploaded {0}', 'up.job': 'job {0}', 'up.processed': '{0} documents stored', 'up.processedOf': '{0} of {1}',
    'up.rate': '{0} documents/s', 'up.eta': 'ETA {0} s', 'up.read': '{0} % read',
    'up.done': 'done: {0} documents, {1} errors', 'up.failed': 'failed', 'up.busy': 'server busy, retrying in {0} s',
    'up.jobs': 'Ingest jobs of {0}', 'up.refresh': 'Refresh', 'up.jobId': 'Job', 'up.status': 'Status', 'up.started': 'Started', 'up.finished': 'Finished',
    'up.errors': 'Errors', 'up.record': 'Record', 'up.sheet': 'Sheet', 'up.docId': 'Document id', 'up.message': 'Message',
    'up.noCollection': 'Create a collection first.', 'up.pick': 'Choose a collection',
    'se.title': 'Search', 'se.collections': 'Collections', 'se.query': 'Query', 'se.queryPh': 'What are you looking for? (press / to focus)',
    'se.restore': 'Restore diacritics', 'se.restore.default': 'collection default', 'se.restore.on': 'yes', 'se.restore.off': 'no',
    'se.max': 'Max results', 'se.offset': 'Offset', 'se.minScore': 'Min score', 'se.minScorePh': 'default',
    'se.range': 'Results {0}–{1}', 'se.below': '{0} more documents scored below the relevance cut-off (min_score).', 'se.showAll': 'Show them (min_score 0)',
    'se.prev': 'Previous page', 'se.next': 'Next page', 'se.format': 'Result format', 'se.content': 'Include', 'se.full': 'documents', 'se.summaries': 'summaries',
    'se.summary': 'summary string', 'se.highlight': 'passages', 'se.maxTokens': 'Token budget', 'se.maxTokensPh': 'collection default',
    'se.filter': 'Filter', 'se.addCond': 'Add condition', 'se.raw': 'Filter JSON (Elasticsearch DSL; written by the builder, editable)',
    'se.search': 'Search', 'se.answer': 'Answer', 'se.curl': 'The same request with curl', 'se.none': 'No documents match.',
    'se.took': '{0} documents in {1} ms', 'se.tookOnly': '{0} ms', 'se.effective': 'Searched as: {0}', 'se.answerTitle': 'Answer', 'se.sources': 'Sources',
    'se.summaryTitle': 'Summary', 'se.summariesTitle': 'Summaries', 'se.tokens': 'Tokens used: {0} of {1}',
    'se.method': 'Method', 'se.message': 'How it fit', 'se.docsCount': 'Documents summarized', 'se.results': 'Results',
    'se.allSections': 'All {0} sections', 'se.docContent': 'Content', 'se.passages': 'Passages', 'se.truncated': 'content truncated',
    'se.pickCollection': 'Choose at least one collection.', 'se.needQuery': 'Write a query or a filter.',
    'se.badFilter': 'The filter is not valid JSON: {0}', 'se.rawEdited': 'Edited by hand: the JSON is what is sent, not the conditions above.', 'se.fieldPh': 'field', 'se.valuePh': 'value', 'se.section': 'section {0}',
    'op.term': 'is', 'op.terms': 'is one of', 'op.prefix': 'starts with', 'op.regexp': 'matches regexp', 'op.range': 'between', 'op.exists': 'exists',
    'occ.must': 'must', 'occ.must_not': 'must not', 'occ.should': 'should',
    'nlu.title': 'NLU', 'nlu.models': 'Models', 'nlu.phraseSets': 'Phrase sets', 'nlu.newModel': 'New model', 'nlu.newSet': 'New phrase set',
    'nlu.name': 'Name', 'nlu.kind': 'Kind', 'nlu.lang': 'Language', 'nlu.id': 'Id', 'nlu.phrases': 'Phrases', 'nlu.members': 'members: {0}',
    'nlu.noModels': 'No models yet.', 'nlu.noSets': 'No phrase sets yet.', 'nlu.template': 'Template',
    'nlu.editModel': 'Edit model {0} (full replacement: what you leave out is gone)', 'nlu.createModel': 'Create a model',
    'nlu.editSet': 'Edit phrase set {0} (full replacement)', 'nlu.createSet': 'Create a phrase set',
    'nlu.confirmModel': 'Delete model "{0}"?', 'nlu.confirmSet': 'Delete phrase set "{0}"?', 'nlu.saved': 'Saved {0}', 'nlu.deleted': 'Deleted {0}',
    'nlu.pipeline': 'Pipeline builder', 'nlu.pipeHelp': 'Tick members in the order they should run, then edit the JSON and create.',
    'nlu.mode': 'Mode', 'nlu.build': 'Write pipeline JSON',
    'nlu.analyze': 'Analysis playground', 'nlu.model': 'Model', 'nlu.text': 'Text', 'nlu.run': 'Analyze', 'nlu.intents': 'Intents',
    'nlu.annotations': 'Annotations', 'nlu.noAnn': 'No annotations.', 'nlu.type': 'Type', 'nlu.value': 'Value', 'nlu.conf': 'Confidence',
    'nlu.span': 'Span', 'nlu.source': 'Source', 'nlu.wholeText': '(the whole text)', 'nlu.analyzeThis': 'Analyze',
    'nlu.t.intent': 'intent classifier', 'nlu.t.regex': 'regex entities', 'nlu.t.nercs': 'built-in entities (Czech)', 'nlu.t.neren': 'built-in entities (English)',
    'nlu.t.closed': 'closed entities from phrase sets', 'nlu.t.pipeline': 'pipeline', 'nlu.t.set': 'phrase set',
    'keys': 'Keys: Alt+1…4 sections, / search box, Ctrl+Enter runs the form',
  },
  cs: {
    'skip': 'Přeskočit na obsah', 'language': 'Jazyk',
    'nav.collections': 'Kolekce', 'nav.upload': 'Nahrávání', 'nav.search': 'Hledání', 'nav.nlu': 'NLU',
    'signed.as': 'Přihlášen(a) jako {0}', 'signed.none': 'Bez přihlašování (loopback)',
    'loading': 'Načítám…', 'save': 'Uložit', 'cancel': 'Zrušit', 'delete': 'Smazat', 'edit': 'Upravit', 'create': 'Vytvořit',
    'remove': 'Odebrat', 'none': '—', 'copy': 'Kopírovat', 'copied': 'Zkopírováno', 'error': 'Chyba',
    'coll.title': 'Kolekce', 'coll.new': 'Nová kolekce', 'coll.empty': 'Zatím žádné kolekce. Vytvořte kolekci a nahrajte do ní dokumenty.',
    'coll.id': 'Kolekce', 'coll.docs': 'Dokumenty', 'coll.size': 'Velikost', 'coll.lang': 'Jazyk', 'coll.embedding': 'Embedding model',
    'coll.fields': 'Deklarovaná pole', 'coll.updated': 'Změněno', 'coll.actions': 'Akce', 'coll.upload': 'Nahrát', 'coll.search': 'Hledat',
    'coll.confirmDelete': 'Smazat kolekci „{0}“ a jejích {1} dokumentů? Nelze vrátit.',
    'coll.deleted': 'Kolekce {0} smazána', 'coll.saved': 'Kolekce {0} uložena', 'coll.created': 'Kolekce {0} vytvořena',
    'coll.editTitle': 'Úprava kolekce {0}', 'coll.newTitle': 'Nová kolekce',
    'coll.idHelp': 'malá písmena, číslice, - a _ (nejvýše 64)',
    'coll.restore': 'Doplňovat českou diakritiku v dotazech', 'coll.fulltext': 'Klíčová slova a filtry (fulltext)',
    'coll.model': 'Embedding model', 'coll.model.default': 'výchozí (nainstalovaný model)', 'coll.model.none': 'žádný (jen klíčová slova)', 'coll.model.named': 'nainstalovaný model podle jména',
    'coll.modelName': 'Jméno modelu', 'coll.maxTokens': 'Rozpočet tokenů shrnutí', 'coll.tokenizer': 'Tokenizér shrnutí',
    'coll.fieldsTitle': 'Pole a jejich typy', 'coll.fieldName': 'Pole', 'coll.fieldType': 'Typ', 'coll.multi': 'více hodnot (dělené |)',
    'coll.addField': 'Přidat pole', 'coll.json': 'Odesílaná konfigurace (PUT, lze upravit; API nahradí celou konfiguraci, dokumenty zůstanou)',
    'coll.types': 'enum_text: filtr i hledání · enum: filtr · number: rozsahy · text: jen hledání',
    'coll.badJSON': 'Konfigurace není platný JSON: {0}',
    'up.title': 'Nahrát dokumenty', 'up.collection': 'Kolekce', 'up.idField': 'Vlastnost s id záznamu (volitelné)',
    'up.drop': 'Přetáhněte sem soubory, nebo stiskněte Enter a vyberte je', 'up.formats': 'Text, Markdown, HTML, DOCX, PDF, JSON, JSONL, CSV, TSV, XLSX, ODS: jedna úloha na soubor.',
    'up.upload': 'Nahrání', 'up.ingest': 'Zpracování', 'up.waiting': 'čeká', 'up.uploading': 'nahráno {0} z {1}',
    'up.uploaded': 'nahráno {0}', 'up.job': 'úloha {0}', 'up.processed': 'uloženo {0} dokumentů', 'up.processedOf': '{0} z {1}',
    'up.rate': '{0} dokumentů/s', 'up.eta': 'zbývá {0} s', 'up.read': 'přečteno {0} %',
    'up.done': 'hotovo: {0} dokumentů, {1} chyb', 'up.failed': 'selhalo', 'up.busy': 'server je vytížen, další pokus za {0} s',
    'up.jobs': 'Úlohy zpracování kolekce {0}', 'up.refresh': 'Obnovit', 'up.jobId': 'Úloha', 'up.status': 'Stav', 'up.started': 'Začátek', 'up.finished': 'Konec',
    'up.errors': 'Chyby', 'up.record': 'Záznam', 'up.sheet': 'List', 'up.docId': 'Id dokumentu', 'up.message': 'Zpráva',
    'up.noCollection': 'Nejprve vytvořte kolekci.', 'up.pick': 'Vyberte kolekci',
    'se.title': 'Hledání', 'se.collections': 'Kolekce', 'se.query': 'Dotaz', 'se.queryPh': 'Co hledáte? (klávesa / sem přesune kurzor)',
    'se.restore': 'Doplnit diakritiku', 'se.restore.default': 'podle kolekce', 'se.restore.on': 'ano', 'se.restore.off': 'ne',
    'se.max': 'Nejvýše výsledků', 'se.offset': 'Posun', 'se.minScore': 'Min. skóre', 'se.minScorePh': 'výchozí',
    'se.range': 'Výsledky {0}–{1}', 'se.below': 'Dalších {0} dokumentů má skóre pod prahem relevance (min_score).', 'se.showAll': 'Ukázat je (min_score 0)',
    'se.prev': 'Předchozí stránka', 'se.next': 'Další stránka', 'se.format': 'Formát výsledků', 'se.content': 'Zahrnout', 'se.full': 'dokumenty', 'se.summaries': 'shrnutí',
    'se.summary': 'souhrnný text', 'se.highlight': 'pasáže', 'se.maxTokens': 'Rozpočet tokenů', 'se.maxTokensPh': 'podle kolekce',
    'se.filter': 'Filtr', 'se.addCond': 'Přidat podmínku', 'se.raw': 'Filtr v JSON (DSL Elasticsearch; píše ho sestavovač, lze upravit)',
    'se.search': 'Hledat', 'se.answer': 'Odpovědět', 'se.curl': 'Stejný požadavek přes curl', 'se.none': 'Nic nenalezeno.',
    'se.took': '{0} dokumentů za {1} ms', 'se.tookOnly': '{0} ms', 'se.effective': 'Hledáno jako: {0}', 'se.answerTitle': 'Odpověď', 'se.sources': 'Zdroje',
    'se.summaryTitle': 'Souhrn', 'se.summariesTitle': 'Shrnutí', 'se.tokens': 'Použito tokenů: {0} z {1}',
    'se.method': 'Metoda', 'se.message': 'Jak se vešlo', 'se.docsCount': 'Shrnuté dokumenty', 'se.results': 'Výsledky',
    'se.allSections': 'Všech {0} oddílů', 'se.docContent': 'Obsah', 'se.passages': 'Pasáže', 'se.truncated': 'obsah zkrácen',
    'se.pickCollection': 'Vyberte aspoň jednu kolekci.', 'se.needQuery': 'Napište dotaz nebo filtr.',
    'se.badFilter': 'Filtr není platný JSON: {0}', 'se.rawEdited': 'Upraveno ručně: odešle se tento JSON, ne podmínky výše.', 'se.fieldPh': 'pole', 'se.valuePh': 'hodnota', 'se.section': 'oddíl {0}',
    'op.term': 'je', 'op.terms': 'je jedno z', 'op.prefix': 'začíná na', 'op.regexp': 'odpovídá regexpu', 'op.range': 'mezi', 'op.exists': 'existuje',
    'occ.must': 'musí', 'occ.must_not': 'nesmí', 'occ.should': 'může',
    'nlu.title': 'NLU', 'nlu.models': 'Modely', 'nlu.phraseSets': 'Sady frází', 'nlu.newModel': 'Nový model', 'nlu.newSet': 'Nová sada frází',
    'nlu.name': 'Jméno', 'nlu.kind': 'Druh', 'nlu.lang': 'Jazyk', 'nlu.id': 'Id', 'nlu.phrases': 'Fráze', 'nlu.members': 'členové: {0}',
    'nlu.noModels': 'Zatím žádné modely.', 'nlu.noSets': 'Zatím žádné sady frází.', 'nlu.template': 'Šablona',
    'nlu.editModel': 'Úprava modelu {0} (úplné nahrazení: co vynecháte, zmizí)', 'nlu.createModel': 'Vytvořit model',
    'nlu.editSet': 'Úprava sady frází {0} (úplné nahrazení)', 'nlu.createSet': 'Vytvořit sadu frází',
    'nlu.confirmModel': 'Smazat model „{0}“?', 'nlu.confirmSet': 'Smazat sadu frází „{0}“?', 'nlu.saved': 'Uloženo: {0}', 'nlu.deleted': 'Smazáno: {0}',
    'nlu.pipeline': 'Sestavení pipeline', 'nlu.pipeHelp': 'Zaškrtněte členy v pořadí, v jakém mají běžet, pak upravte JSON a vytvořte.',
    'nlu.mode': 'Režim', 'nlu.build': 'Napsat JSON pipeline',
    'nlu.analyze': 'Zkušební analýza', 'nlu.model': 'Model', 'nlu.text': 'Text', 'nlu.run': 'Analyzovat', 'nlu.intents': 'Záměry',
    'nlu.annotations': 'Anotace', 'nlu.noAnn': 'Žádné anotace.', 'nlu.type': 'Typ', 'nlu.value': 'Hodnota', 'nlu.conf': 'Jistota',
    'nlu.span': 'Rozsah', 'nlu.source': 'Zdroj', 'nlu.wholeText': '(celý text)', 'nlu.analyzeThis': 'Analyzovat',
    'nlu.t.intent': 'klasifikátor záměrů', 'nlu.t.regex': 'entity z regulárních výrazů', 'nlu.t.nercs': 'vestavěné entity (čeština)', 'nlu.t.neren': 'vestavěné entity (angličtina)',
    'nlu.t.closed': 'uzavřené entity ze sad frází', 'nlu.t.pipeline': 'pipeline', 'nlu.t.set': 'sada frází',
    'keys': 'Klávesy: Alt+1…4 sekce, / pole dotazu, Ctrl+Enter spustí formulář',
  },
};

let lang = localStorage.getItem('najdi.lang') || ((navigator.language || '').toLowerCase().startsWith('cs') ? 'cs' : 'en');

// t returns the text of key in the current language, with {0}, {1}... replaced.
function t(key, ...args) {
  let s = (TEXTS[lang] && TEXTS[lang][key]) || TEXTS.en[key] || key;
  args.forEach((a, i) => { s = s.split('{' + i + '}').join(String(a)); });
  return s;
}

// ---------------------------------------------------------------- DOM

// h builds an element: h('button', {class: 'primary', onclick: f}, 'Save').
// Text is always set as text, never parsed as HTML.
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k === 'value') el.value = v;
    else if (k === 'checked' || k === 'selected' || k === 'disabled' || k === 'multiple') el[k] = !!v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); return el; }

function labeled(text, control, cls) { return h('label', {class: cls || 'field'}, h('span', {}, text), control); }
function check(text, input) { return h('label', {class: 'check'}, input, h('span', {}, text)); }
function options(list, selected) {
  return list.map(([v, label]) => h('option', {value: v, selected: v === selected}, label));
}

function toast(msg) {
  const box = document.getElementById('status');
  const el = h('div', {class: 'toast'}, msg);
  box.appendChild(el);
  while (box.children.length > 3) box.firstChild.remove();
  setTimeout(() => el.remove(), 3500);
}

function errorBox(err) { return h('div', {class: 'error', role: 'alert'}, (err && err.message) || String(err)); }

function showError(container, err) {
  const old = container.querySelector(':scope > .error');
  if (old) old.remove();
  if (err) container.prepend(errorBox(err));
}

function fmtBytes(n) {
  if (n < 1024) return n + ' B';
  const u = ['KiB', 'MiB', 'GiB'];
  let i = -1;
  do { n /= 1024; i++; } while (n >= 1024 && i < u.length - 1);
  return n.toFixed(n < 10 ? 1 : 0) + ' ' + u[i];
}

function fmtDate(s) {
  if (!s) return '';
  const d = new Date(s);
  return isNaN(d) ? s : d.toLocaleString(lang === 'cs' ? 'cs-CZ' : 'en-GB');
}

// Ctrl+Enter in any control of form runs action.
function ctrlEnter(form, action) {
  form.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); action(); }
  });
}

// ---------------------------------------------------------------- API

// api calls the JSON API; an error answer throws an Error with its message.
async function api(method, path, body) {
  const init = {method, headers: {}, credentials: 'same-origin'};
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  const r = await fetch(path, init);
  const text = await r.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (_) { data = null; }
  if (!r.ok) {
    const msg = (data && data.error && data.error.message) || (r.status + ' ' + r.statusText);
    const e = new Error(r.status + ': ' + msg);
    e.status = r.status; e.body = data;
    throw e;
  }
  return data;
}

const enc = encodeURIComponent;
let session = {user: '', auth: false};

async function listCollections() { return (await api('GET', '/v1/collections')).collections || []; }

// ---------------------------------------------------------------- router

const routes = {collections: pageCollections, upload: pageUpload, search: pageSearch, nlu: pageNLU};

function parseHash() {
  const raw = location.hash.replace(/^#\/?/, '');
  const [pathPart, query] = raw.split('?');
  const parts = pathPart.split('/').filter(Boolean).map(decodeURIComponent);
  return {parts, params: new URLSearchParams(query || '')};
}

let renderSeq = 0;
async function render() {
  const {parts, params} = parseHash();
  const name = routes[parts[0]] ? parts[0] : 'collections';
  for (const a of document.querySelectorAll('#nav a')) {
    if (a.dataset.route === name) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  const main = clear(document.getElementById('main'));
  const seq = ++renderSeq;
  main.appendChild(h('p', {class: 'muted'}, t('loading')));
  try {
    const el = await routes[name](parts.slice(1), params);
    if (seq !== renderSeq) return;
    clear(main).appendChild(el);
  } catch (err) {
    if (seq !== renderSeq) return;
    clear(main).appendChild(errorBox(err));
  }
  document.title = 'najdi · ' + t('nav.' + name);
}

function translateStatic() {
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  document.getElementById('who').textContent = session.auth ? t('signed.as', session.user) : t('signed.none');
}

// ---------------------------------------------------------------- collections

async function pageCollections(rest) {
  if (rest[0] === 'new') return collectionForm(null);
  if (rest[1] === 'edit') return collectionForm(await api('GET', '/v1/collections/' + enc(rest[0])));
  const list = await listCollections();
  const page = h('section', {},
    h('div', {class: 'row head'}, h('h1', {}, t('coll.title')),
      h('button', {class: 'primary', id: 'new-collection', onclick: () => { location.hash = '#/collections/new'; }}, t('coll.new'))));
  if (!list.length) {
    page.appendChild(h('p', {class: 'card muted'}, t('coll.empty')));
    return page;
  }
  // The size column appears when the API reports sizes (size_bytes).
  const sized = list.some((c) => typeof c.size_bytes === 'number');
  const body = h('tbody');
  for (const c of list) {
    const model = c.embedding_config && c.embedding_config.model;
    const fields = Object.entries(c.fields || {}).map(([n, f]) => n + ': ' + f.type + (f.multi ? '[]' : '')).join(', ');
    body.appendChild(h('tr', {'data-collection': c.collection_id},
      h('td', {}, h('a', {href: '#/search?c=' + enc(c.collection_id), class: 'id'}, c.collection_id), c.owner ? h('div', {class: 'small muted'}, c.owner) : null),
      h('td', {class: 'num docs'}, (c.document_count || 0).toLocaleString()),
      sized ? h('td', {class: 'num size'}, typeof c.size_bytes === 'number' ? fmtBytes(c.size_bytes) : t('none')) : null,
      h('td', {}, c.search_config ? c.search_config.language : ''),
      h('td', {class: 'small'}, typeof model === 'string' ? model : (model && model.model) || ''),
      h('td', {class: 'small mono'}, fields || t('none')),
      h('td', {class: 'small'}, fmtDate(c.updated_at)),
      h('td', {}, h('div', {class: 'actions'},
        h('button', {onclick: () => { location.hash = '#/upload?c=' + enc(c.collection_id); }}, t('coll.upload')),
        h('button', {onclick: () => { location.hash = '#/search?c=' + enc(c.collection_id); }}, t('coll.search')),
        h('button', {onclick: () => { location.hash = '#/collections/' + enc(c.collection_id) + '/edit'; }}, t('edit')),
        h('button', {class: 'danger', onclick: async () => {
          if (!confirm(t('coll.confirmDelete', c.collection_id, c.document_count || 0))) return;
          try { await api('DELETE', '/v1/collections/' + enc(c.collection_id)); toast(t('coll.deleted', c.collection_id)); render(); } catch (e) { showError(page, e); }
        }}, t('delete'))))));
  }
  page.appendChild(h('div', {class: 'card'}, h('table', {id: 'collections'},
    h('thead', {}, h('tr', {}, ['coll.id', 'coll.docs', 'coll.size', 'coll.lang', 'coll.embedding', 'coll.fields', 'coll.updated', 'coll.actions']
      .filter((k) => sized || k !== 'coll.size').map((k) => h('th', {class: k === 'coll.docs' || k === 'coll.size' ? 'num' : ''}, t(k))))), body)));
  return page;
}

const FIELD_TYPES = ['enum_text', 'enum', 'number', 'text'];

function collectionForm(existing) {
  // The configuration keeps what the form does not show (separators,
  // remote model objects); the form overrides what it shows.
  const base = existing ? {
    search_config: existing.search_config, fulltext_config: existing.fulltext_config,
    summary_config: existing.summary_config, embedding_config: existing.embedding_config, fields: existing.fields || {},
  } : {search_config: {language: 'en', restore_diacritics: false}, fulltext_config: {enabled: true, engine: 'elastic'},
    summary_config: {max_tokens: 1000}, embedding_config: {model: 'default'}, fields: {}};
  const model = base.embedding_config.model;
  const id = h('input', {id: 'c-id', value: existing ? existing.collection_id : '', disabled: !!existing, required: true,
    pattern: '[a-z0-9][a-z0-9_\\-]{0,63}', autocomplete: 'off'});
  const language = h('select', {id: 'c-lang'}, options([['en', 'en'], ['cs', 'cs'], ['auto', 'auto']], base.search_config.language || 'en'));
  const restore = h('input', {type: 'checkbox', id: 'c-restore', checked: base.search_config.restore_diacritics});
  const fulltext = h('input', {type: 'checkbox', id: 'c-fulltext', checked: base.fulltext_config.enabled !== false});
  const modelKind = typeof model === 'string' ? (model === 'default' || model === 'none' ? model : 'named') : 'object';
  const modelSel = h('select', {id: 'c-model'}, options([['default', t('coll.model.default')], ['none', t('coll.model.none')], ['named', t('coll.model.named')]]
    .concat(modelKind === 'object' ? [['object', 'remote (JSON)']] : []), modelKind));
  const modelName = h('input', {id: 'c-model-name', value: modelKind === 'named' ? model : ''});
  const maxTokens = h('input', {type: 'number', id: 'c-max-tokens', min: 1, value: base.summary_config.max_tokens || 1000});
  const tokenizer = h('select', {id: 'c-tokenizer'}, options([['o200k_base', 'o200k_base'], ['cl100k_base', 'cl100k_base'], ['embedding', 'embedding']], base.summary_config.tokenizer || 'o200k_base'));
  const fieldRows = h('tbody');
  const json = h('textarea', {class: 'json', id: 'c-json', spellcheck: 'false'});
  const form = h('form', {class: 'card', novalidate: true});
  let jsonEdited = false;
  json.addEventListener('input', () => { jsonEdited = true; });

  function addField(name, spec) {
    const tr = h('tr', {class: 'field-row'},
      h('td', {}, h('input', {class: 'f-name', value: name || '', 'aria-label': t('coll.fieldName')})),
      h('td', {}, h('select', {class: 'f-type', 'aria-label': t('coll.fieldType')}, options(FIELD_TYPES.map((x) => [x, x]), (spec && spec.type) || 'enum_text'))),
      h('td', {}, check(t('coll.multi'), h('input', {type: 'checkbox', class: 'f-multi', checked: spec && spec.multi}))),
      h('td', {}, h('button', {type: 'button', onclick: () => { tr.remove(); sync(); }}, t('remove'))));
    fieldRows.appendChild(tr);
    return tr;
  }
  function config() {
    const c = JSON.parse(JSON.stringify(base));
    c.search_config.language = language.value;
    c.search_config.restore_diacritics = restore.checked;
    c.fulltext_config.enabled = fulltext.checked;
    if (modelSel.value === 'named') c.embedding_config.model = modelName.value.trim();
    else if (modelSel.value !== 'object') c.embedding_config.model = modelSel.value;
    c.summary_config.max_tokens = Number(maxTokens.value) || 1000;
    c.summary_config.tokenizer = tokenizer.value;
    c.fields = {};
    for (const tr of fieldRows.querySelectorAll('tr')) {
      const n = tr.querySelector('.f-name').value.trim();
      if (!n) continue;
      const f = {type: tr.querySelector('.f-type').value};
      if (tr.querySelector('.f-multi').checked) f.multi = true;
      c.fields[n] = f;
    }
    return c;
  }
  function sync() {
    modelName.parentElement.hidden = modelSel.value !== 'named';
    json.value = JSON.stringify(config(), null, 2);
    jsonEdited = false;
  }
  for (const [n, f] of Object.entries(base.fields || {})) addField(n, f);
  async function save() {
    const cid = id.value.trim();
    let body;
    try { body = JSON.parse(json.value); } catch (e) { showError(form, new Error(t('coll.badJSON', e.message))); return; }
    try {
      await api('PUT', '/v1/collections/' + enc(cid), body);
      toast(existing ? t('coll.saved', cid) : t('coll.created', cid));
      location.hash = '#/collections';
    } catch (e) { showError(form, e); }
  }
  form.addEventListener('input', (e) => { if (e.target !== json) sync(); });
  form.addEventListener('change', (e) => { if (e.target !== json) sync(); });
  form.addEventListener('submit', (e) => { e.preventDefault(); save(); });
  ctrlEnter(form, save);
  append(form, [
    h('div', {class: 'row'},
      labeled(t('coll.id') + ' (' + t('coll.idHelp') + ')', id),
      labeled(t('coll.lang'), language),
      labeled(t('coll.model'), modelSel), labeled(t('coll.modelName'), modelName),
      labeled(t('coll.maxTokens'), maxTokens), labeled(t('coll.tokenizer'), tokenizer)),
    h('p', {}, check(t('coll.restore'), restore), ' ', check(t('coll.fulltext'), fulltext)),
    h('h2', {}, t('coll.fieldsTitle')), h('p', {class: 'small muted'}, t('coll.types')),
    h('table', {id: 'c-fields'}, h('thead', {}, h('tr', {}, h('th', {}, t('coll.fieldName')), h('th', {}, t('coll.fieldType')), h('th'), h('th'))), fieldRows),
    h('p', {}, h('button', {type: 'button', id: 'c-add-field', onclick: () => { addField('', null).querySelector('input').focus(); sync(); }}, t('coll.addField'))),
    h('h2', {}, t('coll.json')), json,
    h('p', {class: 'actions'}, h('button', {class: 'primary', type: 'submit', id: 'c-save'}, existing ? t('save') : t('create')),
      h('button', {type: 'button', onclick: () => { location.hash = '#/collections'; }}, t('cancel')))]);
  sync();
  setTimeout(() => (existing ? language : id).focus(), 0);
  return h('section', {}, h('h1', {}, existing ? t('coll.editTitle', existing.collection_id) : t('coll.newTitle')), form);
}

// ---------------------------------------------------------------- upload

async function pageUpload(rest, params) {
  const list = await listCollections();
  const page = h('section', {}, h('h1', {}, t('up.title')));
  if (!list.length) {
    page.appendChild(h('p', {class: 'card'}, t('up.noCollection'), ' ', h('a', {href: '#/collections/new'}, t('coll.new'))));
    return page;
  }
  const want = params.get('c');
  const coll = h('select', {id: 'u-collection'}, options(list.map((c) => [c.collection_id, c.collection_id + ' (' + (c.document_count || 0) + ')']),
    want || list[0].collection_id));
  const idField = h('input', {id: 'u-id-field', placeholder: 'ISO3166-1-Alpha-2'});
  const input = h('input', {type: 'file', multiple: true, id: 'u-files', hidden: true});
  const drop = h('div', {class: 'drop', id: 'drop', tabindex: '0', role: 'button', 'aria-label': t('up.drop')},
    h('strong', {}, t('up.drop')), h('div', {class: 'small'}, t('up.formats')));
  const queue = h('div', {id: 'u-queue'});
  drop.addEventListener('click', () => input.click());
  drop.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); input.click(); } });
  drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => { e.preventDefault(); drop.classList.remove('over'); enqueue(e.dataTransfer.files); });
  input.addEventListener('change', () => { enqueue(input.files); input.value = ''; });

  // The collection's jobs (GET /v1/collections/{id}/jobs), newest first.
  const jobs = h('div', {class: 'card', id: 'u-jobs', hidden: true});
  async function refreshJobs() {
    let r;
    try { r = await api('GET', '/v1/collections/' + enc(coll.value) + '/jobs'); } catch (_) { jobs.hidden = true; return; }
    clear(jobs).hidden = false;
    append(jobs, [h('div', {class: 'row head'}, h('h2', {}, t('up.jobs', coll.value)), h('button', {type: 'button', onclick: refreshJobs}, t('up.refresh'))),
      (r.jobs || []).length ? h('table', {}, h('thead', {}, h('tr', {}, ['up.jobId', 'up.status', 'coll.docs', 'up.errors', 'up.started', 'up.finished'].map((k) => h('th', {}, t(k))))),
        h('tbody', {}, r.jobs.slice(0, 50).map((j) => h('tr', {},
          h('td', {class: 'mono small', title: j.job_id}, j.job_id.slice(0, 8)), h('td', {}, h('span', {class: 'badge ' + j.status}, j.status)),
          h('td', {class: 'num'}, j.processed + (typeof j.total === 'number' ? ' / ' + j.total : '')),
          h('td', {class: 'num'}, (j.errors || []).length), h('td', {class: 'small'}, fmtDate(j.started_at)), h('td', {class: 'small'}, fmtDate(j.finished_at))))))
        : h('p', {class: 'muted'}, t('none'))]);
  }
  coll.addEventListener('change', refreshJobs);

  let chain = Promise.resolve();
  function enqueue(files) {
    for (const f of Array.from(files || [])) {
      const item = fileItem(f, coll.value, idField.value.trim());
      queue.appendChild(item.el);
      queue.parentElement.hidden = false;
      chain = chain.then(() => item.run()).then(refreshJobs);
    }
  }
  append(page, [h('div', {class: 'card'}, h('div', {class: 'row'}, labeled(t('up.collection'), coll), labeled(t('up.idField'), idField)),
    h('p'), drop, input), h('div', {class: 'card', hidden: true}, queue), jobs]);
  refreshJobs();
  return page;
}

// fileItem uploads one file as an asynchronous ingest job and follows
// the job: an upload bar (XHR progress) and an ingest bar (the job's
// processed count), then the documents stored and the per-record errors.
function fileItem(file, collection, idField) {
  const upBar = h('progress', {class: 'up-bar', max: file.size || 1, value: 0});
  const upText = h('span', {class: 'up-text'}, t('up.waiting'));
  const jobBar = h('progress', {class: 'job-bar', max: 1, value: 0});
  const jobText = h('span', {class: 'job-text'}, t('up.waiting'));
  const state = h('span', {class: 'badge state'}, t('up.waiting'));
  const details = h('div', {class: 'file-details'});
  const el = h('div', {class: 'file', 'data-file': file.name},
    h('div', {}, h('span', {class: 'name'}, file.name), ' ', h('span', {class: 'muted small'}, fmtBytes(file.size), ' → ', collection), ' ', state),
    h('div', {class: 'bars'}, h('span', {}, t('up.upload')), upBar, upText, h('span', {}, t('up.ingest')), jobBar, jobText),
    details);
  function setState(kind, text) { state.className = 'badge state ' + kind; state.textContent = text; }
  function fail(msg) {
    setState('failed', t('up.failed'));
    details.appendChild(h('div', {class: 'error', role: 'alert'}, msg));
  }

  function upload() {
    return new Promise((resolve) => {
      let url = '/v1/collections/' + enc(collection) + '/documents?async=true&filename=' + enc(file.name);
      if (idField) url += '&id_field=' + enc(idField);
      const xhr = new XMLHttpRequest();
      xhr.open('POST', url);
      xhr.upload.addEventListener('progress', (e) => {
        if (e.lengthComputable) { upBar.max = e.total; upBar.value = e.loaded; }
        upText.textContent = t('up.uploading', fmtBytes(e.loaded), fmtBytes(e.total || file.size));
      });
      xhr.addEventListener('load', () => {
        let data = null;
        try { data = JSON.parse(xhr.responseText); } catch (_) { data = null; }
        resolve({status: xhr.status, data, retry: Number(xhr.getResponseHeader('Retry-After')) || 2});
      });
      xhr.addEventListener('error', () => resolve({status: 0, data: null}));
      xhr.send(file);
    });
  }

  async function follow(statusURL) {
    for (;;) {
      let st;
      try { st = await api('GET', statusURL); } catch (e) { fail(e.message); return; }
      const total = typeof st.total === 'number' ? st.total : null;
      // The bar follows the documents stored of a known total, else the
      // share of the upload the parser has read, else it runs
      // (indeterminate) until the job ends.
      if (st.status !== 'running') { jobBar.max = 1; jobBar.value = 1; }
      else if (total && st.processed > 0) { jobBar.max = total; jobBar.value = st.processed; }
      else if (st.bytes_total > 0 && st.bytes_read > 0) { jobBar.max = st.bytes_total; jobBar.value = st.bytes_read; }
      else jobBar.removeAttribute('value');
      let text = total ? t('up.processedOf', st.processed, total) : t('up.processed', st.processed);
      if (st.status === 'running' && !total && st.bytes_total > 0) text += ' · ' + t('up.read', Math.round(100 * (st.bytes_read || 0) / st.bytes_total));
      const rate = st.documents_per_second;
      const eta = st.eta_seconds;
      if (st.status === 'running' && typeof rate === 'number') text += ' · ' + t('up.rate', rate.toFixed(1));
      if (st.status === 'running' && typeof eta === 'number') text += ' · ' + t('up.eta', Math.round(eta));
      jobText.textContent = text;
      if (st.status !== 'running') {
        const errs = st.errors || [];
        if (st.status === 'failed') fail(st.error || 'failed');
        else setState(errs.length ? 'done warn' : 'done', t('up.done', (st.documents || []).length, errs.length));
        jobText.textContent = t('up.processed', st.processed);
        if (errs.length) details.appendChild(errorTable(errs));
        return;
      }
      setState('running', st.status);
      await new Promise((r) => setTimeout(r, 400));
    }
  }

  async function run() {
    setState('running', t('up.upload'));
    for (;;) {
      const r = await upload();
      if (r.status === 429) {
        upText.textContent = t('up.busy', r.retry);
        await new Promise((res) => setTimeout(res, r.retry * 1000));
        continue;
      }
      if (r.status !== 202 || !r.data || !r.data.status_url) {
        upBar.value = 0;
        fail((r.data && r.data.error && r.data.error.message) || ('HTTP ' + r.status));
        upText.textContent = 'HTTP ' + r.status;
        return;
      }
      upBar.max = 1; upBar.value = 1;
      upText.textContent = t('up.uploaded', fmtBytes(file.size)) + ' · ' + t('up.job', r.data.job_id.slice(0, 8));
      await follow(r.data.status_url);
      return;
    }
  }
  return {el, run};
}

function errorTable(errs) {
  return h('details', {open: true, class: 'errors'}, h('summary', {}, t('up.errors') + ' (' + errs.length + ')'),
    h('table', {}, h('thead', {}, h('tr', {}, ['up.record', 'up.sheet', 'up.docId', 'up.message'].map((k) => h('th', {}, t(k))))),
      h('tbody', {}, errs.slice(0, 500).map((e) => h('tr', {},
        h('td', {class: 'num'}, e.record ?? ''), h('td', {}, e.sheet || ''), h('td', {class: 'mono'}, e.document_id || ''), h('td', {}, e.message || ''))))));
}

// ---------------------------------------------------------------- search

const OPS_BY_TYPE = {
  number: ['term', 'range', 'exists'],
  enum: ['term', 'terms', 'prefix', 'regexp', 'exists'],
  enum_text: ['term', 'terms', 'prefix', 'regexp', 'exists'],
  '': ['term', 'terms', 'prefix', 'regexp', 'range', 'exists'],
};

async function pageSearch(rest, params) {
  const list = await listCollections();
  const byId = Object.fromEntries(list.map((c) => [c.collection_id, c]));
  const wanted = (params.get('c') || (list[0] ? list[0].collection_id : '')).split(',');
  const picks = list.map((c) => h('input', {type: 'checkbox', value: c.collection_id, checked: wanted.includes(c.collection_id), class: 's-coll'}));
  const query = h('input', {type: 'search', id: 's-query', placeholder: t('se.queryPh'), value: params.get('q') || '', autocomplete: 'off'});
  const restore = h('select', {id: 's-restore'}, options([['', t('se.restore.default')], ['true', t('se.restore.on')], ['false', t('se.restore.off')]], ''));
  const maxResults = h('input', {type: 'number', id: 's-max', min: 1, max: 1000, value: 10});
  const offset = h('input', {type: 'number', id: 's-offset', min: 0, value: 0});
  const minScore = h('input', {type: 'number', id: 's-min-score', min: 0, max: 1, step: 0.01, placeholder: t('se.minScorePh')});
  const format = h('select', {id: 's-format'}, options([['sections', 'sections'], ['flat', 'flat']], 'sections'));
  const incFull = h('input', {type: 'checkbox', id: 's-full', checked: true});
  const incSummaries = h('input', {type: 'checkbox', id: 's-summaries'});
  const incSummary = h('input', {type: 'checkbox', id: 's-summary'});
  const highlight = h('input', {type: 'checkbox', id: 's-highlight', checked: true});
  const maxTokens = h('input', {type: 'number', id: 's-max-tokens', min: 1, placeholder: t('se.maxTokensPh')});
  const conds = h('div', {class: 'conds'});
  const raw = h('textarea', {class: 'json', id: 's-filter', rows: 4, spellcheck: 'false', placeholder: '{"term": {"field": "value"}}'});
  const rawHint = h('p', {class: 'small muted', id: 's-filter-hint', hidden: true}, t('se.rawEdited'));
  const fieldList = h('datalist', {id: 's-fields'});
  const curl = h('pre', {id: 's-curl'});
  const results = h('div', {id: 's-results'});
  const form = h('form', {class: 'card', id: 's-form', novalidate: true});

  function selected() { return picks.filter((p) => p.checked).map((p) => p.value); }
  // Inferred field types are not part of a collection's configuration:
  // fields seen in results are offered too (numbers as number).
  const seen = {};
  function fieldTypes() {
    const m = Object.assign({}, seen);
    for (const id of selected()) for (const [n, f] of Object.entries((byId[id] && byId[id].fields) || {})) m[n] = f.type;
    return m;
  }
  function refreshFields() {
    clear(fieldList);
    for (const [n, ty] of Object.entries(fieldTypes())) fieldList.appendChild(h('option', {value: n, label: ty}));
  }

  function addCond() {
    const occ = h('select', {class: 'c-occ', 'aria-label': 'bool'}, options([['must', t('occ.must')], ['must_not', t('occ.must_not')], ['should', t('occ.should')]], 'must'));
    const field = h('input', {class: 'c-field', list: 's-fields', placeholder: t('se.fieldPh'), 'aria-label': t('se.fieldPh')});
    const op = h('select', {class: 'c-op', 'aria-label': 'operator'});
    const valueBox = h('span', {class: 'c-value'});
    const row = h('div', {class: 'cond'}, occ, field, op, valueBox,
      h('button', {type: 'button', 'aria-label': t('remove'), onclick: () => { row.remove(); writeFilter(); }}, '✕'));
    function setOps() {
      const ty = fieldTypes()[field.value.trim()] || '';
      const cur = op.value;
      clear(op);
      append(op, options(OPS_BY_TYPE[ty].map((o) => [o, t('op.' + o)]), OPS_BY_TYPE[ty].includes(cur) ? cur : OPS_BY_TYPE[ty][0]));
      setValue();
    }
    function setValue() {
      clear(valueBox);
      if (op.value === 'range') valueBox.appendChild(h('span', {class: 'range'}, h('input', {class: 'c-gte', placeholder: '≥', 'aria-label': 'gte'}), h('input', {class: 'c-lte', placeholder: '≤', 'aria-label': 'lte'})));
      else if (op.value !== 'exists') valueBox.appendChild(h('input', {class: 'c-val', placeholder: op.value === 'terms' ? 'a, b, c' : t('se.valuePh'), 'aria-label': t('se.valuePh')}));
    }
    field.addEventListener('input', setOps);
    op.addEventListener('change', setValue);
    conds.appendChild(row);
    setOps();
    return row;
  }

  // buildFilter turns the condition rows into a bool filter.
  function buildFilter() {
    const types = fieldTypes();
    const b = {};
    for (const row of conds.querySelectorAll('.cond')) {
      const f = row.querySelector('.c-field').value.trim();
      if (!f) continue;
      const isNum = types[f] === 'number';
      const conv = (v) => (isNum && v !== '' && !isNaN(Number(v)) ? Number(v) : v);
      const op = row.querySelector('.c-op').value;
      const val = row.querySelector('.c-val');
      let clause;
      if (op === 'exists') clause = {exists: {field: f}};
      else if (op === 'range') {
        const r = {};
        const gte = row.querySelector('.c-gte').value.trim(), lte = row.querySelector('.c-lte').value.trim();
        if (gte !== '') r.gte = Number(gte);
        if (lte !== '') r.lte = Number(lte);
        clause = {range: {[f]: r}};
      } else if (op === 'terms') clause = {terms: {[f]: val.value.split(',').map((s) => conv(s.trim())).filter((s) => s !== '')}};
      else clause = {[op]: {[f]: conv(val.value)}};
      const occ = row.querySelector('.c-occ').value;
      (b[occ] = b[occ] || []).push(clause);
    }
    return Object.keys(b).length ? {bool: b} : null;
  }
  function writeFilter() {
    const f = buildFilter();
    raw.value = f ? JSON.stringify(f, null, 2) : '';
    raw.rows = Math.min(18, Math.max(4, raw.value.split('\n').length));
    rawHint.hidden = true;
    writeCurl();
  }
  raw.addEventListener('input', () => { rawHint.hidden = !conds.querySelector('.cond'); });

  // request builds the body: only what differs from the API's defaults
  // (answer leaves out documents unless include_content asks for them).
  function request(op) {
    const req = {};
    if (query.value.trim()) req.query = query.value.trim();
    if (raw.value.trim()) {
      try { req.filter = JSON.parse(raw.value); } catch (e) { throw new Error(t('se.badFilter', e.message)); }
    }
    if (restore.value) req.restore_diacritics = restore.value === 'true';
    if (Number(maxResults.value) !== 10) req.max_results = Number(maxResults.value);
    if (Number(offset.value) > 0) req.offset = Number(offset.value);
    if (minScore.value !== '') req.min_score = Number(minScore.value);
    if (format.value !== 'flat') req.result_format = format.value;
    const inc = [];
    if (incFull.checked) inc.push('full');
    if (incSummaries.checked) inc.push('summaries');
    if (incSummary.checked) inc.push('summary');
    if (inc.length !== 1 || inc[0] !== 'full' || op === 'answer') req.include_content = inc;
    if (!highlight.checked) req.highlight = false;
    if (maxTokens.value) req.summary_config = {max_tokens: Number(maxTokens.value)};
    return req;
  }
  function path(op) { return '/v1/collections/' + selected().map(enc).join(',') + '/' + op; }
  function writeCurl(op) {
    let req;
    try { req = request(op); } catch (_) { return; }
    const q = (s) => "'" + s.replace(/'/g, "'\\''") + "'";
    curl.textContent = 'curl -s' + (session.auth ? ' -u ' + q(session.user) : '') + ' -X POST ' + q(location.origin + path(op || 'search')) +
      " \\\n  -H 'Content-Type: application/json' \\\n  -d " + q(JSON.stringify(req, null, 1).replace(/\n\s*/g, ' '));
  }

  const top = () => results.parentElement.scrollIntoView({block: 'start'});
  async function run(op) {
    showError(form, null);
    if (!selected().length) { showError(form, new Error(t('se.pickCollection'))); return; }
    let req;
    try { req = request(op); } catch (e) { showError(form, e); return; }
    if (!req.query && !req.filter) { showError(form, new Error(t('se.needQuery'))); return; }
    writeCurl(op);
    clear(results).appendChild(h('p', {class: 'muted'}, t('loading')));
    try {
      const resp = await api('POST', path(op), req);
      for (const d of resp.documents || []) {
        for (const [k, v] of Object.entries(d.fields || {})) if (!(k in seen)) seen[k] = typeof v === 'number' ? 'number' : 'enum_text';
      }
      refreshFields();
      const budget = (req.summary_config && req.summary_config.max_tokens) || ((byId[selected()[0]] || {}).summary_config || {}).max_tokens || 1000;
      clear(results).appendChild(renderResults(resp, req, budget, {
        next: resp.metadata && typeof resp.metadata.next_offset === 'number' ? () => { offset.value = resp.metadata.next_offset; run(op).then(top); } : null,
        prev: req.offset ? () => { offset.value = Math.max(0, req.offset - (req.max_results || 10)); run(op).then(top); } : null,
        all: resp.metadata && resp.metadata.below_min_score > 0 ? () => { minScore.value = 0; run(op); } : null,
      }));
    } catch (e) { clear(results).appendChild(errorBox(e)); }
  }

  picks.forEach((p) => p.addEventListener('change', () => { offset.value = 0; refreshFields(); writeCurl(); }));
  // A new query or filter starts from the first page.
  query.addEventListener('input', () => { offset.value = 0; });
  raw.addEventListener('input', () => { offset.value = 0; });
  form.addEventListener('input', (e) => { if (e.target.closest('.cond')) writeFilter(); else writeCurl(); });
  form.addEventListener('change', (e) => { if (e.target.closest('.cond')) writeFilter(); else writeCurl(); });
  form.addEventListener('submit', (e) => { e.preventDefault(); run('search'); });
  ctrlEnter(form, () => run('search'));
  refreshFields();

  append(form, [
    h('fieldset', {class: 'plain'}, h('legend', {}, t('se.collections')),
      h('div', {class: 'collections-pick'}, list.map((c, i) => check(c.collection_id + ' (' + (c.document_count || 0) + ')', picks[i])))),
    labeled(t('se.query'), query),
    h('div', {class: 'row'}, labeled(t('se.restore'), restore), labeled(t('se.max'), maxResults), labeled(t('se.offset'), offset),
      labeled(t('se.minScore'), minScore), labeled(t('se.format'), format), labeled(t('se.maxTokens'), maxTokens)),
    h('p', {}, h('span', {class: 'muted small'}, t('se.content') + ': '), check(t('se.full'), incFull), ' ', check(t('se.highlight'), highlight), ' ',
      check(t('se.summaries'), incSummaries), ' ', check(t('se.summary'), incSummary)),
    h('div', {class: 'filters'}, h('h3', {}, t('se.filter')), conds, fieldList,
      h('button', {type: 'button', id: 's-add-cond', onclick: () => { addCond().querySelector('.c-field').focus(); }}, t('se.addCond'))),
    labeled(t('se.raw'), raw), rawHint,
    h('p', {class: 'actions'}, h('button', {class: 'primary', type: 'submit', id: 's-search'}, t('se.search')),
      h('button', {type: 'button', id: 's-answer', onclick: () => run('answer')}, t('se.answer'))),
    h('h3', {}, t('se.curl')),
    h('div', {class: 'curl'}, curl, h('button', {type: 'button', onclick: async () => {
      try { await navigator.clipboard.writeText(curl.textContent); toast(t('copied')); } catch (_) { getSelection().selectAllChildren(curl); }
    }}, t('copy'))),
    h('p', {class: 'small muted'}, t('keys'))]);
  writeCurl();
  setTimeout(() => query.focus(), 0);
  if (params.get('q')) setTimeout(() => run('search'), 0);
  return h('section', {}, h('h1', {}, t('se.title')), h('div', {class: 'grid2'}, form, h('div', {class: 'card'}, h('h2', {}, t('se.results')), results)));
}

// marked returns text with the [start, end) code-point spans highlighted.
function marked(text, spans) {
  const cps = Array.from(text);
  const out = [];
  let at = 0;
  for (const s of spans.slice().sort((a, b) => a.start - b.start)) {
    const start = Math.max(s.start, at), end = Math.min(s.end, cps.length);
    if (end <= start) continue;
    if (start > at) out.push(cps.slice(at, start).join(''));
    out.push(h('mark', {title: s.title || ''}, cps.slice(start, end).join('')));
    at = end;
  }
  if (at < cps.length) out.push(cps.slice(at).join(''));
  return out;
}

function scoreView(score) {
  return h('span', {class: 'score'}, h('meter', {min: 0, max: 1, value: score}), (score ?? 0).toFixed(3));
}

function renderResults(resp, req, budget, paging) {
  const out = h('div', {});
  const docs = resp.documents;
  const meta = resp.metadata || {};
  out.appendChild(h('p', {class: 'muted small', id: 's-took'}, docs ? t('se.took', docs.length, meta.took_ms ?? '') : t('se.tookOnly', meta.took_ms ?? '')));
  const first = (req.offset || 0) + 1;
  if (docs && docs.length && (req.offset || meta.next_offset !== undefined)) {
    out.appendChild(h('p', {class: 'small', id: 's-range'}, t('se.range', first, first + docs.length - 1)));
  }
  if (meta.below_min_score > 0) {
    out.appendChild(h('p', {class: 'small', id: 's-below'}, t('se.below', meta.below_min_score), ' ',
      paging.all ? h('button', {type: 'button', id: 's-show-all', onclick: paging.all}, t('se.showAll')) : null));
  }
  if (meta.effective_queries) out.appendChild(h('p', {class: 'small', id: 's-effective'}, t('se.effective', meta.effective_queries.join(' · '))));
  if (resp.answer !== undefined) {
    out.appendChild(h('section', {id: 's-answer-box'}, h('h3', {}, t('se.answerTitle')), h('div', {class: 'answer'}, resp.answer),
      h('p', {class: 'small'}, t('se.sources') + ': ', (meta.answer_sources || []).join(', ') || t('none'))));
  }
  if (meta.tokens) {
    const used = meta.tokens.prompt_tokens;
    out.appendChild(h('section', {class: 'summary-box', id: 's-summary-meta'},
      h('p', {}, h('meter', {min: 0, max: budget, value: used}), ' ', t('se.tokens', used, budget)),
      h('dl', {class: 'kv'},
        meta.summary_method ? [h('dt', {}, t('se.method')), h('dd', {}, meta.summary_method)] : null,
        meta.original_documents_count !== undefined ? [h('dt', {}, t('se.docsCount')), h('dd', {}, meta.summary_documents_count + ' / ' + meta.original_documents_count)] : null,
        meta.message ? [h('dt', {}, t('se.message')), h('dd', {}, meta.message)] : null)));
  }
  if (resp.summary !== undefined) out.appendChild(h('section', {class: 'summary-box', id: 's-summary-string'}, h('h3', {}, t('se.summaryTitle')), h('pre', {}, resp.summary)));
  if (resp.summaries && resp.summaries.length) {
    out.appendChild(h('section', {class: 'summary-box', id: 's-summaries'}, h('h3', {}, t('se.summariesTitle')),
      resp.summaries.map((s) => h('div', {class: 'result'}, h('div', {class: 'id'}, (s.collection_id ? s.collection_id + ' / ' : '') + s.document_id), h('pre', {}, s.content)))));
  }
  if (docs) {
    if (!docs.length) out.appendChild(h('p', {}, t('se.none')));
    docs.forEach((d, i) => out.appendChild(renderDoc(d, (req.offset || 0) + i, req)));
    if (paging.prev || paging.next) {
      out.appendChild(h('p', {class: 'actions pager'},
        h('button', {type: 'button', id: 's-prev', disabled: !paging.prev, onclick: paging.prev}, '← ' + t('se.prev')),
        h('button', {type: 'button', id: 's-next', disabled: !paging.next, onclick: paging.next}, t('se.next') + ' →')));
    }
  }
  return out;
}

function renderDoc(d, i, req) {
  const passages = d.passages || [];
  const head = h('header', {}, h('span', {class: 'muted'}, '#' + (i + 1)), h('span', {class: 'id'}, (d.collection_id ? d.collection_id + ' / ' : '') + d.document_id),
    scoreView(d.score), h('span', {class: 'badge ' + (d.source || ''), title: 'source'}, d.source || ''),
    d.truncated ? h('span', {class: 'badge failed'}, t('se.truncated')) : null);
  const el = h('article', {class: 'result', 'data-doc': d.document_id}, head);
  const fields = Object.entries(d.fields || {});
  if (fields.length) {
    const chip = ([k, v]) => h('span', {}, k + ': ' + (Array.isArray(v) ? v.join(' | ') : v));
    el.appendChild(h('div', {class: 'fields'}, fields.slice(0, 8).map(chip),
      fields.length > 8 ? h('details', {}, h('summary', {}, '+' + (fields.length - 8)), fields.slice(8).map(chip)) : null));
  }
  const bySection = {};
  passages.forEach((p) => { (bySection[p.section_index] = bySection[p.section_index] || []).push({start: p.offsets[0], end: p.offsets[1], title: 'score ' + p.score}); });
  if (d.sections) {
    // Passages highlighted inside their sections: the sections holding
    // passages first, in document order, the whole document on demand.
    const sectionView = (s, idx) => h('div', {class: 'section ' + s.type + (bySection[idx] ? ' hit' : ''), 'data-section': idx},
      h('div', {class: 'type'}, s.type + ' · ' + t('se.section', idx)), h('div', {class: 'content'}, marked(s.content, bySection[idx] || [])));
    const hits = d.sections.map((s, idx) => [s, idx]).filter(([, idx]) => bySection[idx]);
    hits.forEach(([s, idx]) => el.appendChild(sectionView(s, idx)));
    if (!hits.length) d.sections.slice(0, 3).forEach((s, idx) => el.appendChild(sectionView(s, idx)));
    if (d.sections.length > hits.length) {
      const all = h('details', {}, h('summary', {}, t('se.allSections', d.sections.length)));
      all.addEventListener('toggle', () => {
        if (all.open && all.children.length === 1) d.sections.forEach((s, idx) => all.appendChild(sectionView(s, idx)));
      }, {once: false});
      el.appendChild(all);
    }
  } else {
    if (passages.length) {
      el.appendChild(h('div', {class: 'passages'}, passages.map((p) => h('div', {class: 'section hit'},
        h('div', {class: 'type'}, t('se.section', p.section_index) + ' · ' + p.score), h('div', {class: 'content'}, h('mark', {}, p.text))))));
    }
    if (d.content !== undefined) {
      el.appendChild(h('details', {}, h('summary', {}, t('se.docContent')), h('pre', {}, d.content.length > 20000 ? d.content.slice(0, 20000) + '…' : d.content)));
    }
  }
  return el;
}

// ---------------------------------------------------------------- NLU

function modelKind(m) {
  if (m.type === 'pipeline') return 'pipeline (' + (m.mode || '') + ')';
  if (m.annotator) return (m.annotator.service === 'builtin' ? '' : m.annotator.service + ' ') + (m.annotator.model || '');
  return m.name;
}

function templates(models, sets) {
  const annot = models.filter((m) => m.type !== 'pipeline').map((m) => m.model_id);
  return {
    intent: {name: 'travel', type: 'annotator', annotator: {service: 'builtin', model: 'intent-classifier', config: {
      examples: {book_flight: ['book a flight to London', 'I need a plane ticket', 'find me a flight to Paris',
        'chci letenku do Londýna', 'potřebuji letět do Paříže', 'přiletím do Prahy'],
      weather: ['will it rain tomorrow', 'weather forecast for Prague', 'is it going to be sunny',
        'jaké bude zítra počasí', 'bude pršet v Brně', 'předpověď počasí na víkend']}, threshold: 0.5}}},
    regex: {name: 'codes', type: 'annotator', annotator: {service: 'builtin', model: 'regex', config: {patterns: {order: 'OBJ-[0-9]+'}}}},
    nercs: {name: 'builtin-ner', language: 'cs'},
    neren: {name: 'builtin-ner', language: 'en'},
    closed: {name: 'closed-ner', phrase_set_ids: sets.slice(0, 1).map((s) => s.phrase_set_id)},
    pipeline: {name: 'support', type: 'pipeline', mode: 'sequential', pipeline: {models: annot.length ? annot : [{name: 'builtin-ner', language: 'cs'}]}},
    set: {name: 'city', description: 'Czech cities', language: 'cs', case_sensitive: false,
      phrases: [{text: 'Praha', value: 'Prague', synonyms: ['hlavní město']}, {text: 'Brno', value: 'Brno'}, {text: 'Ostrava'}]},
  };
}

async function pageNLU(rest, params) {
  const [mr, sr] = await Promise.all([api('GET', '/models'), api('GET', '/phrase-sets')]);
  const models = mr.models || [], sets = sr.phrase_sets || [];
  const page = h('section', {}, h('h1', {}, t('nlu.title')));
  const tpl = templates(models, sets);

  // Editor: create (POST) or full replacement (PUT) of a model or a phrase set.
  const editor = h('div', {class: 'card', id: 'n-editor', hidden: true});
  function openEditor(kind, existing, text) {
    // A new box per opening: its key handlers go with it.
    const box = h('div', {});
    clear(editor).hidden = false;
    editor.appendChild(box);
    const isModel = kind === 'model';
    const title = existing ? t(isModel ? 'nlu.editModel' : 'nlu.editSet', existing.name) : t(isModel ? 'nlu.createModel' : 'nlu.createSet');
    const json = h('textarea', {class: 'json', id: 'n-json', spellcheck: 'false'});
    json.value = text || JSON.stringify(existing || (isModel ? tpl.intent : tpl.set), null, 2);
    const tplSel = isModel && !existing ? h('select', {id: 'n-template'}, options(['intent', 'regex', 'nercs', 'neren', 'closed', 'pipeline'].map((k) => [k, t('nlu.t.' + k)]), 'intent')) : null;
    if (tplSel) tplSel.addEventListener('change', () => { json.value = JSON.stringify(tpl[tplSel.value], null, 2); });
    async function save() {
      let body;
      try { body = JSON.parse(json.value); } catch (e) { showError(box, new Error(t('coll.badJSON', e.message))); return; }
      const base = isModel ? '/models' : '/phrase-sets';
      const id = existing && (isModel ? existing.model_id : existing.phrase_set_id);
      try {
        const saved = await api(existing ? 'PUT' : 'POST', existing ? base + '/' + enc(id) : base, body);
        toast(t('nlu.saved', saved.name));
        render();
      } catch (e) { showError(box, e); }
    }
    ctrlEnter(box, save);
    box.addEventListener('keydown', (e) => { if (e.key === 'Escape') { editor.hidden = true; } });
    append(box, [h('h2', {}, title), tplSel ? labeled(t('nlu.template'), tplSel) : null, json,
      h('p', {class: 'actions'}, h('button', {class: 'primary', id: 'n-save', onclick: save}, existing ? t('save') : t('create')),
        h('button', {onclick: () => { editor.hidden = true; }}, t('cancel')))]);
    editor.scrollIntoView({block: 'nearest'});
    json.focus();
  }

  async function del(kind, obj) {
    const isModel = kind === 'model';
    if (!confirm(t(isModel ? 'nlu.confirmModel' : 'nlu.confirmSet', obj.name))) return;
    try {
      await api('DELETE', (isModel ? '/models/' + enc(obj.model_id) : '/phrase-sets/' + enc(obj.phrase_set_id)));
      toast(t('nlu.deleted', obj.name));
      render();
    } catch (e) { showError(page, e); }
  }

  const analyzeModel = h('select', {id: 'n-model'}, options(models.map((m) => [m.model_id, m.name + ' · ' + modelKind(m)]), params.get('m') || (models[0] && models[0].model_id)));
  const names = Object.fromEntries(models.map((m) => [m.model_id, m.name]));
  const modelRows = models.map((m) => h('tr', {'data-model': m.name},
    h('td', {}, h('strong', {}, m.name), m.description ? h('div', {class: 'small muted'}, m.description) : null,
      m.pipeline ? h('div', {class: 'small muted'}, t('nlu.members', (m.pipeline.models || []).map((x) => names[typeof x === 'string' ? x : x.model_id] || x).join(' → '))) : null),
    h('td', {class: 'small'}, modelKind(m)),
    h('td', {class: 'small'}, m.language || (m.annotator && m.annotator.language) || ''),
    h('td', {class: 'small mono', title: m.model_id}, m.model_id.slice(0, 8)),
    h('td', {}, h('div', {class: 'actions'},
      h('button', {onclick: () => { analyzeModel.value = m.model_id; document.getElementById('n-text').focus(); }}, t('nlu.analyzeThis')),
      h('button', {onclick: () => openEditor('model', m)}, t('edit')),
      h('button', {class: 'danger', onclick: () => del('model', m)}, t('delete'))))));
  const setRows = sets.map((s) => h('tr', {'data-set': s.name},
    h('td', {}, h('strong', {}, s.name), s.description ? h('div', {class: 'small muted'}, s.description) : null),
    h('td', {class: 'small'}, s.language || ''),
    h('td', {class: 'small'}, (s.phrases || []).slice(0, 6).map((p) => p.text).join(', ') + ((s.phrases || []).length > 6 ? ', …' : '')),
    h('td', {class: 'small mono', title: s.phrase_set_id}, s.phrase_set_id.slice(0, 8)),
    h('td', {}, h('div', {class: 'actions'},
      h('button', {onclick: () => openEditor('set', s)}, t('edit')),
      h('button', {class: 'danger', onclick: () => del('set', s)}, t('delete'))))));

  // Pipeline builder: members ticked in order.
  const order = [];
  const mode = h('select', {id: 'n-mode'}, options([['sequential', 'sequential'], ['parallel', 'parallel']], 'sequential'));
  const pipeName = h('input', {id: 'n-pipe-name', value: 'pipeline'});
  const memberBoxes = models.map((m) => {
    const cb = h('input', {type: 'checkbox', value: m.model_id});
    cb.addEventListener('change', () => { const i = order.indexOf(m.model_id); if (cb.checked && i < 0) order.push(m.model_id); if (!cb.checked && i >= 0) order.splice(i, 1); });
    return check(m.name + ' (' + modelKind(m) + ')', cb);
  });
  const builder = h('div', {class: 'card'}, h('h2', {}, t('nlu.pipeline')), h('p', {class: 'small muted'}, t('nlu.pipeHelp')),
    h('div', {class: 'row'}, labeled(t('nlu.name'), pipeName), labeled(t('nlu.mode'), mode)),
    h('div', {class: 'collections-pick'}, memberBoxes),
    h('p', {}, h('button', {id: 'n-build', onclick: () => openEditor('model', null, JSON.stringify({name: pipeName.value, type: 'pipeline', mode: mode.value, pipeline: {models: order.slice()}}, null, 2))}, t('nlu.build'))));

  // Analysis playground.
  const text = h('textarea', {id: 'n-text'});
  text.value = params.get('text') || (lang === 'cs' ? 'Přijedu zítra v 8:30 do Prahy, zavolejte mi na 603 123 456.' : 'Book a flight to London next Friday for 200 dollars.');
  const out = h('div', {id: 'n-result'});
  async function analyze() {
    clear(out);
    if (!analyzeModel.value) return;
    try {
      const r = await api('POST', '/models/' + enc(analyzeModel.value) + '/analyze', {text: text.value});
      out.appendChild(renderAnalysis(r, names));
    } catch (e) { out.appendChild(errorBox(e)); }
  }
  const play = h('div', {class: 'card', id: 'n-play'}, h('h2', {}, t('nlu.analyze')),
    labeled(t('nlu.model'), analyzeModel), labeled(t('nlu.text'), text),
    h('p', {class: 'actions'}, h('button', {class: 'primary', id: 'n-analyze', onclick: analyze}, t('nlu.run')), h('span', {class: 'small muted'}, h('kbd', {}, 'Ctrl'), '+', h('kbd', {}, 'Enter'))), out);
  ctrlEnter(play, analyze);

  append(page, [
    h('div', {class: 'grid-nlu'},
      h('div', {},
        h('div', {class: 'card'}, h('div', {class: 'row head'}, h('h2', {}, t('nlu.models')), h('button', {id: 'n-new-model', onclick: () => openEditor('model', null)}, t('nlu.newModel'))),
          models.length ? h('table', {id: 'n-models'}, h('thead', {}, h('tr', {}, ['nlu.name', 'nlu.kind', 'nlu.lang', 'nlu.id', 'coll.actions'].map((k) => h('th', {}, t(k))))), h('tbody', {}, modelRows))
            : h('p', {class: 'muted'}, t('nlu.noModels'))),
        h('div', {class: 'card'}, h('div', {class: 'row head'}, h('h2', {}, t('nlu.phraseSets')), h('button', {id: 'n-new-set', onclick: () => openEditor('set', null)}, t('nlu.newSet'))),
          sets.length ? h('table', {id: 'n-sets'}, h('thead', {}, h('tr', {}, ['nlu.name', 'nlu.lang', 'nlu.phrases', 'nlu.id', 'coll.actions'].map((k) => h('th', {}, t(k))))), h('tbody', {}, setRows))
            : h('p', {class: 'muted'}, t('nlu.noSets'))),
        models.length ? builder : null),
      h('div', {}, editor, play))]);
  if (params.get('text') && analyzeModel.value) setTimeout(analyze, 0);
  return page;
}

// colorOf gives each annotation name a stable pastel colour.
function colorOf(name) {
  let x = 0;
  for (const ch of name) x = (x * 31 + ch.codePointAt(0)) >>> 0;
  return 'hsl(' + (x % 360) + ', 85%, 82%)';
}

// renderAnalysis shows the intents, the text with its entity annotations
// marked (code-point offsets; overlapping spans split at their bounds),
// and every annotation in a table.
function renderAnalysis(r, names) {
  const cps = Array.from(r.text);
  const ents = (r.annotations || []).filter((a) => a.type !== 'intent');
  const cuts = new Set([0, cps.length]);
  ents.forEach((a) => { cuts.add(a.start); cuts.add(a.end); });
  const bounds = Array.from(cuts).filter((x) => x >= 0 && x <= cps.length).sort((a, b) => a - b);
  const textEl = h('div', {class: 'annotated', id: 'n-annotated'});
  for (let i = 0; i + 1 < bounds.length; i++) {
    const s = bounds[i], e = bounds[i + 1];
    const piece = cps.slice(s, e).join('');
    const cover = ents.filter((a) => a.start <= s && a.end >= e);
    if (!cover.length) { textEl.appendChild(document.createTextNode(piece)); continue; }
    const m = h('mark', {'data-names': cover.map((a) => a.name).join(' '), title: cover.map((a) => a.name + (a.value !== undefined ? ' = ' + JSON.stringify(a.value) : '') + ' (' + a.confidence + ')').join('\n')},
      piece, h('sub', {}, cover.map((a) => a.name).join('+')));
    m.style.setProperty('--ann', colorOf(cover[0].name));
    textEl.appendChild(m);
  }
  const intents = h('div', {class: 'intents', id: 'n-intents'}, (r.intents || []).map((it) => h('span', {class: 'badge'}, it.intent + ' ' + it.confidence.toFixed(2))));
  const rows = (r.annotations || []).map((a) => h('tr', {},
    h('td', {}, a.name), h('td', {}, a.type), h('td', {}, a.type === 'intent' ? h('span', {class: 'muted'}, t('nlu.wholeText')) : a.text), h('td', {class: 'mono small'}, a.value === undefined ? '' : JSON.stringify(a.value)),
    h('td', {class: 'num'}, a.confidence), h('td', {class: 'mono small'}, a.start + '–' + a.end), h('td', {class: 'small'}, names[a.source] || a.source)));
  return h('div', {},
    (r.intents || []).length ? [h('h3', {}, t('nlu.intents')), intents] : null,
    h('h3', {}, t('nlu.annotations')), textEl,
    rows.length ? h('table', {id: 'n-ann-table'}, h('thead', {}, h('tr', {}, ['nlu.name', 'nlu.type', 'nlu.text', 'nlu.value', 'nlu.conf', 'nlu.span', 'nlu.source'].map((k) => h('th', {}, t(k))))), h('tbody', {}, rows))
      : h('p', {class: 'muted'}, t('nlu.noAnn')));
}

// ---------------------------------------------------------------- start

document.addEventListener('keydown', (e) => {
  if (e.key === '/' && !/^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName)) {
    const q = document.getElementById('s-query');
    if (q) { e.preventDefault(); q.focus(); }
  }
});

window.addEventListener('hashchange', render);

(async function start() {
  const sel = document.getElementById('lang');
  sel.value = lang;
  sel.addEventListener('change', () => { lang = sel.value; localStorage.setItem('najdi.lang', lang); translateStatic(); render(); });
  try { session = await api('GET', '/ui/session.json'); } catch (_) { /* shown by the page's own requests */ }
  translateStatic();
  if (!location.hash) history.replaceState(null, '', '#/collections');
  render();
})();
