// tuios web: the session list, and a terminal (xterm.js) attached to one session over a
// WebSocket. The attach client itself runs in tuios (the same one as `tuios attach`); this page
// is only its terminal: it shows what the client draws and sends keys, pastes, mouse and size.

import { Terminal } from '/assets/xterm.mjs';
import { FitAddon } from '/assets/addon-fit.mjs';
import { WebglAddon } from '/assets/addon-webgl.mjs';
import { ClipboardAddon } from '/assets/addon-clipboard.mjs';

// OSC 52 from the attach client (copy mode, links) sets the browser's clipboard. Reading it
// back is never allowed: no program could ask the page for what the user copied elsewhere.
const clipboard = {
  readText: async () => '',
  writeText: async (selection, text) => {
    if (selection === 'c' || selection === '') await navigator.clipboard.writeText(text);
  },
};

const $ = (id) => document.getElementById(id);
const listView = $('list-view');
const termView = $('term-view');
const status = $('status');
const title = $('title');
const back = $('back');

// Exposed for tests driving a real browser (they read the terminal's buffer).
window.tuios = { term: null, socket: null, ended: null };

function setStatus(text) {
  status.textContent = text;
}

// --- The session list -------------------------------------------------------------------

async function loadSessions() {
  const tbody = $('sessions').querySelector('tbody');
  let body;
  try {
    const res = await fetch('/api/sessions', { credentials: 'same-origin', cache: 'no-store' });
    body = await res.json();
    if (!res.ok) {
      if (res.status === 401) {
        location.href = '/';
        return;
      }
      setStatus(body.error ? body.error.message : `error ${res.status}`);
      body = { sessions: [] };
    } else {
      setStatus('');
    }
  } catch (e) {
    setStatus(`cannot reach tuios web: ${e}`);
    return;
  }
  tbody.replaceChildren();
  for (const s of body.sessions) {
    const tr = document.createElement('tr');
    const name = document.createElement('td');
    // Names come from the daemon: always text, never markup.
    name.textContent = s.name;
    const windows = document.createElement('td');
    windows.className = 'num';
    windows.textContent = String(s.window_count ?? '');
    const clients = document.createElement('td');
    clients.textContent = s.attached ? 'attached' : '';
    const act = document.createElement('td');
    const btn = document.createElement('button');
    btn.type = 'button';
    btn.textContent = 'Attach';
    btn.dataset.session = s.name;
    btn.addEventListener('click', () => attach(s.name, false));
    act.appendChild(btn);
    tr.append(name, windows, clients, act);
    tbody.appendChild(tr);
  }
  $('empty').hidden = body.sessions.length > 0;
}

$('new-form').addEventListener('submit', (e) => {
  e.preventDefault();
  let name = $('new-name').value.trim();
  if (!name) {
    const r = crypto.getRandomValues(new Uint8Array(3));
    name = 'web-' + Array.from(r, (b) => b.toString(16).padStart(2, '0')).join('');
  }
  attach(name, true);
});

back.addEventListener('click', () => showList());

// --- Pastes ---------------------------------------------------------------------------

// The page is the outer terminal, so it does what a careful terminal does before bracketing a
// paste: ESC (and so any embedded end marker ESC[201~), the other C0 controls but tab and
// newlines, DEL and C1 controls are removed. The attach client then applies the Lumen rules
// (sanitising again, and holding a multi-line paste for a window without bracketed paste).
export function cleanPaste(text) {
  return text
    .replaceAll('\x1b[201~', '')
    .replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x80-\x9f]/g, '');
}

// --- The terminal -----------------------------------------------------------------------

let term = null;
let fit = null;
let socket = null;
let onWindowResize = null;

function wsUrl(session, create, cols, rows) {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const q = new URLSearchParams({ cols: String(cols), rows: String(rows) });
  if (session) q.set('session', session);
  if (create) q.set('create', 'true');
  return `${scheme}//${location.host}/ws?${q}`;
}

function attach(session, create) {
  detach();
  listView.hidden = true;
  termView.hidden = false;
  back.hidden = false;
  title.textContent = session ? `session ${session}` : 'new session';
  setStatus('connecting…');
  if (session) history.replaceState(null, '', `#${encodeURIComponent(session)}`);

  term = new Terminal({
    cursorBlink: false,
    allowProposedApi: false,
    scrollback: 0,
    fontFamily: 'DejaVu Sans Mono, Menlo, Consolas, monospace',
    fontSize: 15,
    theme: { background: '#101014' },
  });
  fit = new FitAddon();
  term.loadAddon(fit);
  term.loadAddon(new ClipboardAddon(undefined, clipboard));
  const el = $('terminal');
  el.replaceChildren();
  term.open(el);
  try {
    const webgl = new WebglAddon();
    webgl.onContextLoss(() => webgl.dispose());
    term.loadAddon(webgl);
  } catch (e) {
    // No WebGL (some headless or old browsers): xterm.js draws with the DOM instead.
  }
  fit.fit();
  window.tuios.term = term;
  window.tuios.ended = null;

  // Capture phase on the container: runs before xterm.js's own paste handler on its textarea.
  el.addEventListener('paste', (ev) => {
    const text = ev.clipboardData ? ev.clipboardData.getData('text/plain') : '';
    ev.preventDefault();
    ev.stopImmediatePropagation();
    if (text && term) term.paste(cleanPaste(text));
  }, { capture: true });

  const ws = new WebSocket(wsUrl(session, create, term.cols, term.rows));
  ws.binaryType = 'arraybuffer';
  socket = ws;
  window.tuios.socket = ws;
  const encoder = new TextEncoder();
  ws.addEventListener('open', () => {
    setStatus('');
    term.focus();
  });
  ws.addEventListener('message', (ev) => {
    if (typeof ev.data === 'string') {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg.type === 'end') {
        window.tuios.ended = msg.message;
        setStatus(msg.message);
      }
      return;
    }
    term.write(new Uint8Array(ev.data));
  });
  ws.addEventListener('close', (ev) => {
    if (socket !== ws) return;
    if (!window.tuios.ended) {
      window.tuios.ended = ev.reason || `connection closed (${ev.code})`;
      setStatus(window.tuios.ended);
    }
    showList();
  });
  term.onData((data) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(encoder.encode(data));
  });
  term.onBinary((data) => {
    // Legacy mouse reports: one byte per character.
    if (ws.readyState !== WebSocket.OPEN) return;
    const bytes = Uint8Array.from(data, (c) => c.charCodeAt(0) & 0xff);
    ws.send(bytes);
  });
  term.onResize(({ cols, rows }) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'resize', cols, rows }));
  });
  let pending = false;
  onWindowResize = () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      if (fit) fit.fit();
    });
  };
  window.addEventListener('resize', onWindowResize);
}

function detach() {
  if (onWindowResize) window.removeEventListener('resize', onWindowResize);
  onWindowResize = null;
  const ws = socket;
  socket = null;
  if (ws && ws.readyState <= WebSocket.OPEN) ws.close(1000, 'detached');
  if (term) term.dispose();
  term = null;
  fit = null;
}

function showList() {
  detach();
  termView.hidden = true;
  listView.hidden = false;
  back.hidden = true;
  title.textContent = '';
  history.replaceState(null, '', location.pathname);
  loadSessions();
}

const wanted = location.hash.length > 1 ? decodeURIComponent(location.hash.slice(1)) : null;
if (wanted) {
  attach(wanted, false);
} else {
  loadSessions();
}
