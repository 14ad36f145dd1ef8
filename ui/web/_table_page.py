"""The shared table's page: plain HTML and a little script, no framework.

The page reads its token from its own address, asks ``/api/state`` for the table and follows
``/api/events`` (Server-Sent Events) for what happens next: a line said, the dice and fight
lines, the GM's words as they are written. Everything the players typed is put on the page
as text (``textContent``), never as HTML, and the token travels in an ``Authorization`` header
(the event stream, which cannot send one, carries it in its address).
"""
from __future__ import annotations

__all__ = ["DENIED", "PAGE"]

_STYLE = """
* {box-sizing:border-box}
body {font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:#f4f4f5;color:#18181b}
header {background:#1f2937;color:#f9fafb;padding:10px 18px;display:flex;gap:16px;align-items:baseline;flex-wrap:wrap}
header h1 {font-size:19px;margin:0}
header .you {font-size:14px;color:#d1d5db}
main {display:grid;grid-template-columns:minmax(0,3fr) minmax(280px,2fr);gap:14px;padding:14px 18px}
@media (max-width: 900px) {main {grid-template-columns:1fr}}
section {background:#fff;border:1px solid #d4d4d8;border-radius:8px;padding:10px 12px;margin-bottom:12px}
h2 {font-size:15px;margin:0 0 8px}
#table-turn {font-weight:600;font-size:15px;padding:8px 12px;border-radius:8px;background:#fef3c7;border:1px solid #f59e0b;margin-bottom:12px}
#table-turn.mine {background:#dcfce7;border-color:#16a34a}
#table-turn.calm {background:#e0f2fe;border-color:#0284c7}
#table-log {height:420px;overflow-y:auto;font-size:14px;line-height:1.45}
.line {padding:3px 0;border-bottom:1px dashed #e5e7eb;white-space:pre-wrap;overflow-wrap:anywhere}
.line .who {font-weight:700;margin-right:6px}
.line.gm .who {color:#b45309}
.line.mech {color:#52525b;font-family:ui-monospace,Menlo,monospace;font-size:12.5px}
#table-live:empty {display:none}
#table-live {border-left:4px solid #b45309;background:#fff7ed;padding:8px 10px;margin-top:8px;border-radius:6px;font-size:14px}
#table-unanswered {border-left:4px solid #dc2626;background:#fef2f2;padding:6px 10px;margin-top:8px;border-radius:6px;font-size:14px}
#table-busy {font-style:italic;color:#6b7280;min-height:1.3em;font-size:13px}
form {display:flex;gap:8px;margin-top:10px;align-items:flex-end}
#table-text {flex:1;padding:8px;font-size:15px;border:1px solid #a1a1aa;border-radius:6px;min-height:40px}
button {padding:8px 14px;border-radius:6px;border:1px solid #1d4ed8;background:#1d4ed8;color:#fff;font-size:14px;cursor:pointer}
button.plain {background:#fff;color:#1d4ed8}
button:disabled {opacity:.5;cursor:default}
select {padding:7px;border-radius:6px}
#table-error {color:#991b1b;font-weight:600;min-height:1.2em;margin-top:6px;font-size:14px}
table {border-collapse:collapse;width:100%;font-size:13.5px}
td, th {text-align:left;padding:3px 6px;border-bottom:1px solid #f0f0f0;vertical-align:top}
tr.current {background:#fef3c7;font-weight:600}
tr.foes td.name {color:#9f1239}
tr.gone {color:#9ca3af}
details {margin-bottom:8px}
summary {cursor:pointer;font-weight:600}
.sheet-summary {font-size:13px;color:#3f3f46;margin:4px 0}
.hp {font-weight:600;color:#047857}
#host-notes {width:100%;min-height:110px;font-size:13.5px;padding:6px}
#host-links li {margin-bottom:6px;font-size:12.5px;overflow-wrap:anywhere}
.muted {color:#6b7280;font-size:13px}
.row {display:flex;gap:8px;flex-wrap:wrap;margin-bottom:8px}
"""

DENIED = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>access denied</title>
<meta name="referrer" content="no-referrer"><style>{_STYLE}</style></head>
<body><main style="display:block;max-width:640px"><section><h1 id="table-denied">access denied</h1>
<p>Open the personal link you were given (it carries ?token=...). If it stopped working, ask the host for a new one.</p>
</section></main></body></html>"""

_SCRIPT = r"""
const token = new URLSearchParams(location.search).get('token') || '';
let state = null, lastSeq = 0, source = null, notesDirty = false, live = null;
const heard = window.vgmTableEvents = [];
const $ = (id) => document.getElementById(id);
const el = (tag, attrs, ...kids) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') node.className = v; else if (k === 'text') node.textContent = v; else node.setAttribute(k, v);
  }
  for (const kid of kids) if (kid !== null && kid !== undefined) node.append(kid);
  return node;
};

function denied() {
  if (source) source.close();
  document.title = 'access denied';
  document.body.innerHTML = '';
  document.body.append(el('main', {style: 'display:block;max-width:640px'}, el('section', {},
    el('h1', {id: 'table-denied', text: 'access denied'}),
    el('p', {text: 'Open the personal link you were given (it carries ?token=...). If it stopped working, ask the host for a new one.'}))));
}

const auth = {'Authorization': 'Bearer ' + token};  // the token travels in a header: checked before the body is read

async function api(path, body) {
  const r = await fetch(path, {method: 'POST', headers: {...auth, 'Content-Type': 'application/json'},
                               body: JSON.stringify(body)});
  if (r.status === 403) { denied(); return null; }
  let data = {};
  try { data = await r.json(); } catch (e) { data = {error: 'the table did not answer (' + r.status + ')'}; }
  return data;
}

async function load() {
  const r = await fetch('/api/state', {cache: 'no-store', headers: auth});
  if (r.status === 403) { denied(); return null; }
  state = await r.json();
  render();
  return state;
}

function lineNode(turn) {
  const gm = turn.speaker.toUpperCase() === 'GM';
  const mech = gm && /^\[(fight|roll|order|why|check)\]/.test(turn.text);
  const cls = 'line' + (gm ? ' gm' : '') + (mech ? ' mech' : '') + (!gm && turn.text.startsWith('/roll') ? ' mech' : '');
  return el('div', {class: cls}, mech ? null : el('span', {class: 'who', text: turn.speaker + ':'}), turn.text);
}

function renderLog() {
  const box = $('table-log');
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 60;
  box.replaceChildren(...state.log.map(lineNode));
  if (atBottom || !box.dataset.seen) box.scrollTop = box.scrollHeight;
  box.dataset.seen = '1';
}

function renderTurn() {
  const me = state.you.character;
  const banner = $('table-turn');
  banner.className = '';
  if (state.fight && state.turn) {
    const mine = me && state.turn === me;
    banner.textContent = `Round ${state.round}: it is ${state.turn}'s turn` + (mine ? ' (your turn: what do you do?)' : '');
    if (mine) banner.className = 'mine';
  } else if (state.fight_text) {
    banner.textContent = state.fight_text;
    banner.className = 'calm';
  } else {
    banner.textContent = 'No fight under way: anyone may act.';
    banner.className = 'calm';
  }
}

function renderOrder() {
  const box = $('table-order');
  if (!state.order.length) { box.replaceChildren(el('p', {class: 'muted', text: 'No fight yet: the initiative order appears when one starts.'})); return; }
  const rows = state.order.map((c) => el('tr', {class: [c.side, c.current ? 'current' : '', c.status !== 'up' ? 'gone' : ''].join(' ')},
    el('td', {text: c.current ? '\u25b6' : ''}), el('td', {class: 'name', text: c.name}), el('td', {text: c.initiative}),
    el('td', {class: 'hp', text: c.hp}), el('td', {text: [c.status !== 'up' ? c.status : '', ...c.conditions].filter(Boolean).join(', ')})));
  box.replaceChildren(el('table', {}, el('thead', {}, el('tr', {}, el('th', {}), el('th', {text: 'who'}), el('th', {text: 'init'}),
    el('th', {text: 'HP'}), el('th', {text: 'state'}))), el('tbody', {}, ...rows)));
}

function renderSheets() {
  const box = $('table-sheets');
  const open = new Set([...box.querySelectorAll('details[open]')].map((d) => d.dataset.name));
  box.replaceChildren(...state.party.map((p) => {
    const d = el('details', {'data-name': p.name},
      el('summary', {}, p.name + (p.hp ? ' \u2014 ' : ''), p.hp ? el('span', {class: 'hp', text: p.hp}) : null),
      el('div', {class: 'sheet-summary', text: p.summary}),
      p.notes ? el('div', {class: 'muted', text: p.notes}) : null,
      p.carries ? el('div', {class: 'carries', text: 'carries: ' + p.carries}) : null,
      el('table', {}, el('thead', {}, el('tr', {}, el('th', {text: 'check'}), el('th', {text: 'roll'}), el('th', {text: 'from'}))),
        el('tbody', {}, ...p.rows.map((r) => el('tr', {}, ...r.map((x) => el('td', {text: x})))))));
    if (open.has(p.name) || (!box.dataset.seen && p.name === state.you.character)) d.open = true;
    return d;
  }));
  box.dataset.seen = '1';
}

function renderHost() {
  const panel = $('host-panel');
  if (state.you.role !== 'host') { panel.remove(); return; }
  panel.hidden = false;
  $('host-undo').disabled = !state.can_undo;
  $('host-regenerate').disabled = !state.can_regenerate;
  if (!notesDirty && document.activeElement !== $('host-notes')) $('host-notes').value = (state.notes || []).join('\n');
  const who = $('table-as');
  const chosen = who.value;
  who.replaceChildren(el('option', {value: '', text: state.turn ? `(whose turn: ${state.turn})` : '(first character)'}),
    ...state.party.map((p) => el('option', {value: p.name, text: p.name})));
  who.value = chosen;
  who.hidden = false;
  const links = $('host-links');
  links.replaceChildren(...Object.entries(state.links || {}).map(([seat, link]) => el('li', {},
    el('b', {text: seat + ': '}), el('a', {href: link, target: '_blank', rel: 'noreferrer', text: link}), ' ',
    el('button', {class: 'plain renew', 'data-seat': seat, type: 'button', text: 'new link'}))));
  const last = state.last_reply;
  $('host-last').textContent = last && last.notes && last.notes.length ? 'GM notes on the last reply: ' + last.notes.join(' | ') : '';
}

function renderUnanswered() {
  // lines the table took but never answered (it stopped mid-turn): said plainly, with a way to send them again
  const box = $('table-unanswered');
  const rows = state.unanswered || [];
  box.hidden = !rows.length;
  box.replaceChildren(...rows.map((u) => el('div', {class: 'line'},
    el('span', {class: 'who', text: 'Not answered:'}), `${u.who ? u.who + ': ' : ''}\u201c${u.text}\u201d (${u.why}) `,
    el('button', {class: 'plain again', type: 'button', text: 'send it again', 'data-text': u.text}))));
}

function render() {
  document.title = `${state.title} \u2014 virtual-gm table`;
  $('table-title').textContent = `${state.title} (${state.ruleset_title})`;
  $('table-you').textContent = state.you.role === 'host' ? 'You are the host' : `You play ${state.you.character}`;
  renderTurn(); renderOrder(); renderSheets(); renderLog(); renderUnanswered(); renderHost();
}

function liveBox() {
  if (!live) {
    live = {node: $('table-live'), words: null};
    live.node.replaceChildren();
  }
  return live;
}
function clearLive() { live = null; $('table-live').replaceChildren(); $('table-busy').textContent = ''; }

function follow() {
  source = new EventSource(`/api/events?token=${encodeURIComponent(token)}&after=${lastSeq}`);
  const on = (kind, fn) => source.addEventListener(kind, (e) => {
    let data = {};
    try { data = JSON.parse(e.data); } catch (err) { return; }
    if (data.seq) lastSeq = Math.max(lastSeq, data.seq);
    heard.push(data);  // what this page heard, in order (tests and debugging read window.vgmTableEvents)
    if (heard.length > 500) heard.shift();
    fn(data);
  });
  on('busy', (d) => { clearLive(); $('table-busy').textContent = d.regenerated ? 'the GM answers the last line again\u2026' : `the GM is answering${d.who ? ' ' + d.who : ''}\u2026`; });
  on('said', (d) => { const b = liveBox(); b.node.append(el('div', {class: 'line'}, el('span', {class: 'who', text: d.who + ':'}), d.text)); });
  on('mechanics', (d) => { const b = liveBox(); for (const line of d.lines) b.node.append(el('div', {class: 'line mech', text: line})); });
  on('token', (d) => {
    const b = liveBox();
    if (!b.words) { b.words = el('span', {id: 'table-words'}); b.node.append(el('div', {class: 'line gm'}, el('span', {class: 'who', text: 'GM:'}), b.words)); }
    b.words.append(d.text);
  });
  for (const kind of ['done', 'undo', 'idle', 'error']) on(kind, () => { clearLive(); load(); });
  for (const kind of ['notes', 'revoked', 'state']) on(kind, () => load());
  on('closed', () => { $('table-busy').textContent = 'the host closed the table; it is saved'; source.close(); });
  source.addEventListener('denied', () => denied());
  source.onerror = async () => {
    if (source.readyState === EventSource.CLOSED) {
      const r = await fetch('/api/state', {headers: auth});
      if (r.status === 403) denied(); else setTimeout(follow, 2000);
    }
  };
}

async function send(ev) {
  ev.preventDefault();
  const text = $('table-text').value;
  if (!text.trim()) return;
  $('table-send').disabled = true;
  $('table-error').textContent = '';
  const who = $('table-as');
  const data = await api('/api/act', {text, character: who && !who.hidden ? who.value : null});
  $('table-send').disabled = false;
  if (!data) return;
  if (data.error) { $('table-error').textContent = data.error; return; }
  $('table-text').value = '';
}

async function host(path, body, okText) {
  $('host-status').textContent = '';
  const data = await api(path, body || {});
  if (!data) return;
  $('host-status').textContent = data.error ? data.error : okText;
  return data;
}

async function start() {
  if (!await load()) return;
  lastSeq = state.seq;
  follow();
  $('table-form').addEventListener('submit', send);
  $('table-unanswered').addEventListener('click', (e) => {
    const again = e.target.dataset && e.target.dataset.text;
    if (again !== undefined) { $('table-text').value = again; $('table-text').focus(); }
  });
  $('table-text').addEventListener('keydown', (e) => { if (e.key === 'Enter' && !e.shiftKey) send(e); });
  if (state.you.role === 'host') {
    $('host-undo').onclick = () => host('/api/undo', {}, 'the last reply is undone');
    $('host-regenerate').onclick = () => host('/api/regenerate', {}, 'regenerated');
    $('host-notes').addEventListener('input', () => { notesDirty = true; });
    $('host-notes-save').onclick = async () => {
      const data = await host('/api/notes', {notes: $('host-notes').value}, 'notes saved');
      if (data && !data.error) notesDirty = false;
    };
    $('host-links').addEventListener('click', async (e) => {
      const seat = e.target.dataset && e.target.dataset.seat;
      if (seat) await host('/api/renew', {seat}, `${seat} has a new link; the old one no longer opens the table`);
    });
  }
}
start();
"""

PAGE = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>virtual-gm table</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer">
<style>{_STYLE}</style></head>
<body>
<header><h1 id="table-title">virtual-gm table</h1><span class="you" id="table-you"></span></header>
<main>
 <div>
  <div id="table-turn"></div>
  <section><h2>The table</h2>
   <div id="table-log"></div>
   <div id="table-unanswered" hidden></div>
   <div id="table-live"></div>
   <div id="table-busy"></div>
   <form id="table-form" autocomplete="off">
    <select id="table-as" hidden title="who acts"></select>
    <textarea id="table-text" rows="2" placeholder="What your character does, or /roll 1d20+3, /check stealth"></textarea>
    <button id="table-send" type="submit">Send</button>
   </form>
   <div id="table-error"></div>
  </section>
  <section id="host-panel" hidden><h2>Host</h2>
   <div class="row"><button id="host-undo" class="plain" type="button">Undo the last reply</button>
    <button id="host-regenerate" class="plain" type="button">Regenerate it</button></div>
   <div id="host-status" class="muted"></div>
   <div id="host-last" class="muted"></div>
   <h2 style="margin-top:10px">Scene notes (the GM's only; one a line)</h2>
   <textarea id="host-notes"></textarea>
   <div class="row"><button id="host-notes-save" type="button">Save notes</button></div>
   <h2>Links (private: one per seat)</h2>
   <ul id="host-links"></ul>
  </section>
 </div>
 <div>
  <section><h2>Initiative</h2><div id="table-order"></div></section>
  <section><h2>Characters</h2><div id="table-sheets"></div></section>
 </div>
</main>
<script>{_SCRIPT}</script>
</body></html>"""
