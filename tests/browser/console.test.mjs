// Browser tests of the web console (/ui): Debian's chromium, driven by
// playwright-core, against the real najdi binary on a free loopback port
// with the real default embedding model and HTTP Basic authentication.
//
// Run by `make browser-test` (part of `make test`):
//   NODE_PATH=$(scripts/install-browser.sh) node --test tests/browser/
// Environment: NAJDI_BIN (default bin/najdi), NAJDI_SCREENSHOTS (default
// docs/console), NAJDI_SHARED_DATA (default ../shared/data).
//
// Every console page is saved as a screenshot in docs/console.
import {test as nodeTest, before, after} from 'node:test';
import assert from 'node:assert/strict';
import {spawn, execFileSync} from 'node:child_process';
import {createRequire} from 'node:module';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const require = createRequire(import.meta.url);
const {chromium} = require('playwright-core');

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.resolve(repo, process.env.NAJDI_BIN || 'bin/najdi');
const shots = path.resolve(repo, process.env.NAJDI_SCREENSHOTS || 'docs/console');
const shared = path.resolve(repo, process.env.NAJDI_SHARED_DATA || '../shared/data');

const user = 'alice';
const pass = 'console-' + Math.random().toString(36).slice(2);
let server, base, work, browser, context, page, log = '';

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
}

async function waitHealthy(url, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try { if ((await fetch(url + '/health')).ok) return; } catch (_) { /* not yet */ }
    if (server.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('najdi did not become healthy:\n' + log);
}

async function shot(name, opts = {}) {
  await page.evaluate(() => { const s = document.getElementById('status'); while (s.firstChild) s.firstChild.remove(); });
  await page.screenshot({path: path.join(shots, name + '.png'), fullPage: opts.fullPage ?? false});
}

// test runs fn; when it fails, it saves a screenshot of the page to the
// temporary directory and prints the server's log, to see what was
// waited for.
function test(name, fn) {
  nodeTest(name, async () => {
    try {
      await fn();
    } catch (err) {
      const file = path.join(os.tmpdir(), 'najdi-console-failure-' + name.replace(/[^a-z0-9]+/gi, '-').slice(0, 40) + '.png');
      await page.screenshot({path: file, fullPage: true}).catch(() => {});
      console.error(`failed at ${page.url()}; screenshot ${file}; server log:\n${log.slice(-4000)}`);
      throw err;
    }
  });
}

before(async () => {
  assert.ok(fs.existsSync(bin), `${bin} is missing: run make build`);
  fs.mkdirSync(shots, {recursive: true});
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'najdi-console-'));
  const hash = execFileSync(bin, ['hash-password'], {input: pass + '\n'}).toString().trim();
  fs.writeFileSync(path.join(work, 'users'), `${user}:${hash}:user\n`);
  base = 'http://127.0.0.1:' + await freePort();
  server = spawn(bin, ['serve', '--addr', base.slice(7), '--data', path.join(work, 'data'), '--users', path.join(work, 'users')],
    {stdio: ['ignore', 'pipe', 'pipe']});
  server.stdout.on('data', (d) => { log += d; });
  server.stderr.on('data', (d) => { log += d; });
  await waitHealthy(base, 60000);
  browser = await chromium.launch({
    executablePath: process.env.NAJDI_CHROMIUM || '/usr/bin/chromium',
    args: process.getuid && process.getuid() === 0 ? ['--no-sandbox'] : [],
  });
  context = await browser.newContext({httpCredentials: {username: user, password: pass}, viewport: {width: 1440, height: 900}, locale: 'en-US'});
  page = await context.newPage();
  // Generous: the machine may be busy (2 cores); a passing run waits for
  // none of it.
  page.setDefaultTimeout(120000);
  page.on('dialog', (d) => d.accept());
  // File choosers are intercepted from the start: the interception that
  // page.waitForEvent('filechooser') turns on is sent to the browser
  // concurrently with the key press that follows it, and when the press
  // wins, Chromium cancels the chooser and the event never comes (seen
  // in CI with Chromium 156). A listener held for the whole run keeps the
  // interception on; the round trip after it makes sure it is applied.
  page.on('filechooser', () => {});
  await page.evaluate(() => 1);
  page.on('pageerror', (e) => { log += '\npage error: ' + e.message; });
  // English first; the language test switches to Czech.
  await page.addInitScript(() => { if (!sessionStorage.getItem('init')) { localStorage.setItem('najdi.lang', 'en'); sessionStorage.setItem('init', '1'); } });
});

after(async () => {
  if (browser) await browser.close();
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
  if (work) fs.rmSync(work, {recursive: true, force: true});
});

test('the console needs the API credentials and / leads to it', async () => {
  // Without credentials: 401 with the Basic challenge that makes a
  // browser ask for them (headless Chromium cannot show the prompt).
  for (const p of ['/ui/', '/ui/app.js', '/ui/session.json']) {
    const r = await fetch(base + p);
    assert.equal(r.status, 401, p);
    assert.match(r.headers.get('www-authenticate') || '', /^Basic realm="najdi"/, p);
  }

  const resp = await page.goto(base + '/');
  assert.equal(resp.status(), 200);
  assert.equal(new URL(page.url()).pathname, '/ui/');
  await page.waitForSelector('text=No collections yet');
  assert.match(await page.textContent('#who'), /alice/);
});

test('collections: create with field types, edit, delete', async () => {
  await page.goto(base + '/ui/#/collections');
  await page.click('#new-collection');
  await page.fill('#c-id', 'papers');
  await page.click('#c-add-field');
  await page.fill('#c-fields tbody tr:nth-child(1) .f-name', 'Continent');
  await page.selectOption('#c-fields tbody tr:nth-child(1) .f-type', 'enum');
  await page.click('#c-add-field');
  await page.fill('#c-fields tbody tr:nth-child(2) .f-name', 'Languages');
  await page.selectOption('#c-fields tbody tr:nth-child(2) .f-type', 'enum_text');
  await page.check('#c-fields tbody tr:nth-child(2) .f-multi');
  const sent = JSON.parse(await page.inputValue('#c-json'));
  assert.deepEqual(sent.fields, {Continent: {type: 'enum'}, Languages: {type: 'enum_text', multi: true}});
  await shot('collection-edit', {fullPage: true});
  await page.click('#c-save');
  await page.waitForSelector('tr[data-collection="papers"]');

  // The server has what the form sent.
  const got = await page.evaluate(async () => (await fetch('/v1/collections/papers')).json());
  assert.equal(got.fields.Continent.type, 'enum');
  assert.equal(got.fields.Languages.multi, true);

  // A bad id is the server's 400, shown on the form.
  await page.click('#new-collection');
  await page.fill('#c-id', 'Bad Id');
  await page.click('#c-save');
  await page.waitForSelector('form .error');
  assert.match(await page.textContent('form .error'), /^400/);

  // Edit: the language changes, fields are added, the others stay. The
  // three CSV columns whose first values look like numbers and later ones
  // do not (Dial 1-684, currency code 008, minor unit 2,2) are declared
  // text: inferred from the first batch of a job, they would be numbers and
  // the later rows errors.
  await page.goto(base + '/ui/#/collections/papers/edit');
  await page.waitForSelector('#c-lang');
  await page.selectOption('#c-lang', 'auto');
  for (const [i, f] of ['Dial', 'ISO4217-currency_numeric_code', 'ISO4217-currency_minor_unit'].entries()) {
    await page.click('#c-add-field');
    await page.fill(`#c-fields tbody tr:nth-child(${i + 3}) .f-name`, f);
  }
  await page.click('#c-save');
  await page.waitForSelector('tr[data-collection="papers"]');
  const edited = await page.evaluate(async () => (await fetch('/v1/collections/papers')).json());
  assert.equal(edited.search_config.language, 'auto');
  assert.equal(edited.fields.Continent.type, 'enum');
  assert.equal(edited.fields.Dial.type, 'enum_text');
  assert.equal(Object.keys(edited.fields).length, 5);

  // Create and delete a second one.
  await page.click('#new-collection');
  await page.fill('#c-id', 'scratch');
  await page.click('#c-save');
  await page.waitForSelector('tr[data-collection="scratch"]');
  await page.click('tr[data-collection="scratch"] button.danger');
  await page.waitForSelector('tr[data-collection="scratch"]', {state: 'detached'});
  const list = await page.evaluate(async () => (await fetch('/v1/collections')).json());
  assert.deepEqual(list.collections.map((c) => c.collection_id), ['papers']);
});

// drop drops files on the drop zone as a person's drag and drop does: a
// DataTransfer holding File objects, dispatched as dragover then drop.
async function drop(files) {
  const payload = files.map((f) => ({name: f.name, type: f.type, b64: fs.readFileSync(f.path).toString('base64')}));
  const dt = await page.evaluateHandle((fs) => {
    const d = new DataTransfer();
    for (const f of fs) {
      const bytes = Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0));
      d.items.add(new File([bytes], f.name, {type: f.type}));
    }
    return d;
  }, payload);
  await page.dispatchEvent('#drop', 'dragover', {dataTransfer: dt});
  assert.ok(await page.$eval('#drop', (el) => el.classList.contains('over')), 'the drop zone shows the drag');
  await page.dispatchEvent('#drop', 'drop', {dataTransfer: dt});
}

test('upload: a PDF, a CSV and a JSONL with a bad line, dropped, with progress to the end', async () => {
  // 60 rows of the real country-codes CSV (every column), so that the
  // run stays short: 249 rows take minutes to embed on 2 cores. A job
  // flushes 16 documents first, then 32, so the count stays at 16 while
  // the next 32 rows are embedded: long enough to be seen on any machine.
  const lines = fs.readFileSync(path.join(shared, 'docs/country-codes.csv'), 'utf8').split('\n');
  const csv = path.join(work, 'country-codes-60.csv');
  fs.writeFileSync(csv, lines.slice(0, 61).join('\n') + '\n');
  const jsonl = path.join(work, 'notes.jsonl');
  fs.writeFileSync(jsonl, '{"id": "n1", "text": "first note"}\n{"id": "n2", "text": broken}\n{"id": "n3", "text": "third note"}\n');

  await page.goto(base + '/ui/#/upload?c=papers');
  await page.waitForSelector('#drop');
  // The console polls a job every 400 ms; here every 20 ms, so that a
  // fast machine's short intermediate states are not missed between two
  // polls (the texts checked are still the console's own).
  await page.evaluate(() => {
    const orig = window.setTimeout;
    window.setTimeout = (fn, ms, ...args) => orig(fn, ms === 400 ? 20 : ms, ...args);
  });
  // Keyboard: the drop zone is focusable and Enter opens the file chooser.
  await page.focus('#drop');
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.keyboard.press('Enter')]);
  assert.ok(chooser.isMultiple());
  await drop([{path: path.join(shared, 'docs/tracemonkey.pdf'), name: 'tracemonkey.pdf', type: 'application/pdf'}]);
  const blob = path.join(work, 'program.bin');
  fs.writeFileSync(blob, fs.readFileSync(bin).subarray(0, 4096));
  await drop([{path: csv, name: 'country-codes-60.csv', type: 'text/csv'}, {path: jsonl, name: 'notes.jsonl', type: ''},
    {path: blob, name: 'program.bin', type: 'application/octet-stream'}]);

  // Every text the CSV's ingest bar shows, to see its progress while it runs.
  await page.evaluate(() => {
    window.csvTexts = [];
    new MutationObserver(() => {
      const el = document.querySelector('.file[data-file="country-codes-60.csv"] .job-text');
      if (el && window.csvTexts[window.csvTexts.length - 1] !== el.textContent) window.csvTexts.push(el.textContent);
    }).observe(document.getElementById('u-queue'), {subtree: true, childList: true, characterData: true});
  });
  const pdf = '.file[data-file="tracemonkey.pdf"]';
  // While the PDF's job runs: the upload bar is full, the ingest bar runs.
  await page.waitForFunction((sel) => {
    const b = document.querySelector(sel + ' .up-bar');
    return b && b.value === b.max && /job/.test(document.querySelector(sel + ' .up-text').textContent);
  }, pdf);
  await shot('upload-progress');
  await page.waitForSelector(pdf + ' .state.done', {timeout: 300000});
  assert.match(await page.textContent(pdf + ' .state'), /done: 1 documents, 0 errors/);
  assert.equal(await page.$eval(pdf + ' .job-bar', (b) => b.value === b.max), true);

  // Record ids from the file name: country-codes-60-1, ...
  const csvSel = '.file[data-file="country-codes-60.csv"]';
  await page.waitForSelector(csvSel + ' .state.done', {timeout: 300000});
  assert.match(await page.textContent(csvSel + ' .state'), /done: 60 documents, 0 errors/);
  // While it ran, the bar showed documents stored before the end, the
  // share read, the rate and the time left.
  const texts = await page.evaluate(() => window.csvTexts);
  assert.ok(texts.some((x) => /^([1-9]|[1-5]\d) documents stored · \d+ % read · [\d.]+ documents\/s( · ETA \d+ s)?$/.test(x)), texts.join(' | '));
  const js = '.file[data-file="notes.jsonl"]';
  await page.waitForSelector(js + ' .state.failed, ' + js + ' .state.done', {timeout: 300000});
  assert.match(await page.textContent(js + ' .state'), /done: 2 documents, 1 errors/);
  // A file that no format reads: its job fails and says why.
  const pb = '.file[data-file="program.bin"]';
  await page.waitForSelector(pb + ' .state.failed', {timeout: 300000});
  assert.match(await page.textContent(pb + ' .error'), /binary content: unsupported format/);
  const errRow = await page.textContent(js + ' .errors tbody tr');
  assert.match(errRow, /^1/, 'the error names record 1');
  assert.match(errRow, /line 2/, 'the error names the line');
  // The collection's jobs, newest first, all done.
  await page.waitForFunction(() => document.querySelectorAll('#u-jobs tbody tr').length === 4);
  assert.deepEqual(await page.$$eval('#u-jobs tbody tr .badge', (bs) => bs.map((b) => b.textContent)), ['failed', 'done', 'done', 'done']);
  assert.deepEqual(await page.$$eval('#u-jobs tbody tr td:nth-child(4)', (ts) => ts.map((x) => x.textContent)), ['0', '1', '0', '0']);
  await shot('upload', {fullPage: true});

  await page.goto(base + '/ui/#/collections');
  await page.waitForSelector('tr[data-collection="papers"]');
  assert.equal((await page.textContent('tr[data-collection="papers"] .docs')).trim(), '63');
  await shot('collections');
});

test('search: passages highlighted in their sections, a filter from the builder, summaries, answer, curl', async () => {
  await page.goto(base + '/ui/#/search?c=papers');
  await page.waitForSelector('#s-query');
  // Keyboard: "/" focuses the query box.
  await page.click('h1');
  await page.keyboard.press('/');
  assert.equal(await page.evaluate(() => document.activeElement.id), 's-query');
  await page.keyboard.type('trace compilation of loops');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#s-results article.result');
  assert.equal(await page.getAttribute('#s-results article.result', 'data-doc'), 'tracemonkey.pdf');
  const marks = await page.$$eval('#s-results article.result:first-of-type .section.hit mark', (ms) => ms.map((m) => m.textContent));
  assert.ok(marks.length >= 1, 'passages are marked');
  assert.ok(marks.some((m) => /trac|loop|compil/i.test(m)), 'a marked passage holds a query word: ' + marks.join(' | '));
  assert.match(await page.textContent('#s-curl'), /curl -s -u 'alice' -X POST 'http:\/\/127\.0\.0\.1:\d+\/v1\/collections\/papers\/search'/);
  await shot('search', {fullPage: true});

  // The filter builder: Continent (enum, from the collection) is EU.
  await page.fill('#s-query', 'islands');
  await page.click('#s-add-cond');
  await page.fill('.cond .c-field', 'Continent');
  await page.dispatchEvent('.cond .c-field', 'input');
  await page.selectOption('.cond .c-op', 'term');
  await page.fill('.cond .c-val', 'EU');
  assert.deepEqual(JSON.parse(await page.inputValue('#s-filter')), {bool: {must: [{term: {Continent: 'EU'}}]}});
  await page.check('#s-summaries');
  await page.check('#s-summary');
  await page.fill('#s-max-tokens', '300');
  await page.click('#s-search');
  await page.waitForSelector('#s-summary-meta');
  const docs = await page.$$eval('#s-results article.result', (as) => as.map((a) => a.dataset.doc));
  assert.ok(docs.length >= 1);
  assert.equal(docs[0], 'country-codes-60-2', 'Åland Islands first'); // row 2 of the CSV
  const continents = await page.evaluate(async () => {
    const r = await fetch('/v1/collections/papers/search', {method: 'POST', headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({query: 'islands', filter: {term: {Continent: 'EU'}}})});
    return (await r.json()).documents.map((d) => d.fields.Continent);
  });
  assert.ok(continents.length === docs.length && continents.every((c) => c === 'EU'), 'the page shows what the filter selects');
  assert.ok((await page.$$('#s-results article.result .section.hit mark')).length >= 1);
  const used = await page.textContent('#s-summary-meta');
  const m = used.match(/Tokens used: (\d+) of 300/);
  assert.ok(m && Number(m[1]) > 0 && Number(m[1]) <= 300, used);
  assert.ok((await page.textContent('#s-summary-string pre')).length > 0);
  assert.match(await page.textContent('#s-curl'), /"filter": \{ "bool"/);
  await shot('search-filter', {fullPage: true});

  // The relevance cut-off: what it left out is counted, and shown on demand.
  await page.fill('#s-min-score', '0.5');
  await page.click('#s-search');
  await page.waitForSelector('#s-below');
  const kept = (await page.$$('#s-results article.result')).length;
  assert.match(await page.textContent('#s-below'), /^\d+ more documents scored below the relevance cut-off/);
  await page.click('#s-show-all');
  await page.waitForFunction((n) => document.querySelectorAll('#s-results article.result').length > n, kept);
  assert.equal(await page.inputValue('#s-min-score'), '0');
  await page.fill('#s-min-score', '');

  // A raw filter that the server refuses is its 400, shown.
  await page.fill('#s-filter', '{"match": {"Continent": "EU"}}');
  await page.click('#s-search');
  await page.waitForSelector('#s-results .error');
  assert.match(await page.textContent('#s-results .error'), /^400/);

  assert.ok(await page.isVisible('#s-filter-hint'), 'a hand-edited filter says it is what is sent');

  // Pages: 5 at a time, the second page follows the first.
  await page.click('.cond button');
  await page.fill('#s-query', 'country');
  await page.fill('#s-max', '5');
  await page.click('#s-search');
  await page.waitForSelector('#s-next:not([disabled])');
  const page1 = await page.$$eval('#s-results article.result', (as) => as.map((a) => a.dataset.doc));
  await page.click('#s-next');
  await page.waitForSelector('#s-range:has-text("Results 6–10")');
  const page2 = await page.$$eval('#s-results article.result', (as) => as.map((a) => a.dataset.doc));
  assert.equal(page1.length, 5);
  assert.ok(page2.length >= 1 && page2.every((d) => !page1.includes(d)), page1 + ' / ' + page2);
  assert.equal(await page.inputValue('#s-offset'), '5');
  assert.match(await page.textContent('#s-curl'), /"offset": 5/);
  await shot('search-pages', {fullPage: false});
  await page.click('#s-prev');
  await page.waitForSelector('#s-range:has-text("Results 1–5")');
  assert.deepEqual(await page.$$eval('#s-results article.result', (as) => as.map((a) => a.dataset.doc)), page1);
  await page.fill('#s-max', '10');

  // Answer, with the documents it draws on.
  assert.equal(await page.inputValue('#s-filter'), '');
  await page.uncheck('#s-summaries');
  await page.uncheck('#s-summary');
  await page.fill('#s-max-tokens', '');
  await page.fill('#s-query', 'What does TraceMonkey record?');
  await page.click('#s-answer');
  await page.waitForSelector('#s-answer-box .answer');
  assert.ok((await page.textContent('#s-answer-box .answer')).length > 20);
  assert.match(await page.textContent('#s-answer-box'), /tracemonkey\.pdf/);
  assert.match(await page.textContent('#s-curl'), /\/answer' .*"include_content": \[ "full" \]/s);
  assert.equal(await page.getAttribute('#s-results article.result', 'data-doc'), 'tracemonkey.pdf');
  await shot('search-answer', {fullPage: true});
});

test('NLU: phrase set, models, pipeline, full-replace edit, delete, analysis with marked annotations', async () => {
  await page.goto(base + '/ui/#/nlu');
  await page.waitForSelector('#n-new-set');
  await page.click('#n-new-set');
  await page.click('#n-save');
  await page.waitForSelector('tr[data-set="city"]');

  // Full replacement of the phrase set: Plzeň added.
  await page.click('tr[data-set="city"] button:has-text("Edit")');
  const set = JSON.parse(await page.inputValue('#n-json'));
  set.phrases.push({text: 'Plzeň'});
  await page.fill('#n-json', JSON.stringify(set));
  await page.click('#n-save');
  await page.waitForFunction(() => /Plzeň/.test((document.querySelector('tr[data-set="city"]') || {}).textContent || ''));

  for (const tpl of ['intent', 'nercs', 'closed', 'regex']) {
    await page.click('#n-new-model');
    await page.selectOption('#n-template', tpl);
    await page.click('#n-save');
    await page.waitForSelector('#n-editor', {state: 'hidden'});
  }
  await page.waitForSelector('tr[data-model="codes"]');
  await page.click('tr[data-model="codes"] button.danger');
  await page.waitForSelector('tr[data-model="codes"]', {state: 'detached'});

  // A pipeline of the three remaining models.
  await page.check('label:has-text("travel") input');
  await page.check('label:has-text("builtin-ner") input');
  await page.check('label:has-text("closed-ner") input');
  // An editor opened and cancelled leaves nothing behind.
  await page.click('#n-new-model');
  await page.click('#n-editor button:has-text("Cancel")');
  await page.waitForSelector('#n-editor', {state: 'hidden'});
  await page.fill('#n-pipe-name', 'travel-cs');
  await page.click('#n-build');
  const pipe = JSON.parse(await page.inputValue('#n-json'));
  assert.equal(pipe.pipeline.models.length, 3);
  // Keyboard: Ctrl+Enter saves the editor (once, though it was opened many times).
  await page.focus('#n-json');
  await page.keyboard.press('Control+Enter');
  await page.waitForSelector('tr[data-model="travel-cs"]');
  const stored = await page.evaluate(async () => (await (await fetch('/models')).json()).models.map((m) => m.name));
  assert.deepEqual(stored.sort(), ['builtin-ner', 'closed-ner', 'travel', 'travel-cs']);
  assert.match(await page.textContent('tr[data-model="travel-cs"]'), /travel → builtin-ner → closed-ner/);

  await page.click('tr[data-model="travel-cs"] button:has-text("Analyze")');
  await page.fill('#n-text', 'Potřebuji letenku, přiletím zítra v 8:30 do Prahy. Zavolejte mi na 603 123 456 nebo napište na jan@example.cz.');
  await page.keyboard.press('Control+Enter');
  await page.waitForSelector('#n-annotated mark');
  const names = await page.$$eval('#n-annotated mark', (ms) => ms.map((m) => m.dataset.names + '=' + m.firstChild.textContent));
  for (const want of [/city=Prahy/, /date=zítra/, /time=8:30/, /phone=603 123 456/, /email=jan@example\.cz/]) {
    assert.ok(names.some((n) => want.test(n)), `${want} in ${names.join(', ')}`);
  }
  assert.match(await page.textContent('#n-ann-table'), /"Prague"/);
  const intents = await page.$$eval('#n-intents .badge', (bs) => bs.map((b) => b.textContent));
  assert.ok(intents.length >= 1 && intents.every((i) => /^(book_flight|weather|out_of_scope) \d\.\d\d$/.test(i)), intents.join(', '));
  await shot('nlu', {fullPage: true});
});

test('Czech texts', async () => {
  await page.goto(base + '/ui/#/collections');
  await page.waitForSelector('tr[data-collection="papers"]');
  await page.selectOption('#lang', 'cs');
  await page.waitForSelector('nav a:has-text("Kolekce")');
  await page.waitForSelector('th:has-text("Dokumenty")');
  assert.equal(await page.getAttribute('html', 'lang'), 'cs');
  await page.goto(base + '/ui/#/search?c=papers&q=' + encodeURIComponent('smycky'));
  await page.waitForSelector('#s-results #s-took');
  await shot('search-cs', {fullPage: false});
  await page.goto(base + '/ui/#/nlu');
  await page.waitForSelector('h2:has-text("Zkušební analýza")');
  await page.selectOption('#lang', 'en');
});
