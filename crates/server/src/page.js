// The Yolah page: home (new games, challenges, live games, rules, the
// archive), a game, and the analysis board. One WebSocket to /ws; the
// server decides everything (moves, clocks, results), this page shows it.
"use strict";
const $ = id => document.getElementById(id);
const FILES = "abcdefgh";
const START = "w6b/8/8/3bw3/3wb3/8/8/b6w b 0 0 0";
const PASS = "a1:a1";
const esc = s => String(s).replace(/[&<>"']/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
const params = new URLSearchParams(location.search);
// Replaces an element's content only when it changes: a button being
// clicked, or a link being selected, is not swapped under the pointer by a
// state that changed something else.
// (Compared as the browser writes markup back, quotes and all.)
const scratch = document.createElement("template");
function setHTML(el, html) {
  scratch.innerHTML = html;
  if (el.innerHTML !== scratch.innerHTML) el.innerHTML = html;
}

const S = {
  ws: null, retry: 0, offline: false, wanted: null, hello: null, view: null,
  role: null, key: null, game: null, invite: null, watch: null,
  // Set when this player's seat moved to another tab: its key, and whether this tab watches.
  moved: null,
  state: null, stateAt: 0, states: 0, selected: null, history: null, viewPly: null, confirmResign: false,
  lobby: null, liveExtra: [], archiveNext: null, rule: 0,
  an: null, cache: new Map(),
};

// ---------------------------------------------------------------- positions
function parse(text) {
  const [rows, side, black, white, ply] = text.split(" ");
  const cells = {};
  rows.split("/").forEach((row, i) => {
    let f = 0;
    for (const c of row) {
      if (c >= "1" && c <= "8") { f += +c; continue; }
      cells[FILES[f] + (8 - i)] = c; f++;
    }
  });
  return {cells, side, black: +black, white: +white, ply: +ply};
}

// Where the piece on `sq` may go: like a queen, not through pieces or holes.
function destinations(cells, sq) {
  const out = [];
  for (const [df, dr] of [[1,0],[-1,0],[0,1],[0,-1],[1,1],[1,-1],[-1,1],[-1,-1]]) {
    let f = FILES.indexOf(sq[0]) + df, r = +sq[1] + dr;
    while (f >= 0 && f < 8 && r >= 1 && r <= 8 && !cells[FILES[f] + r]) { out.push(FILES[f] + r); f += df; r += dr; }
  }
  return out;
}
// Whether `color` ("b" or "w") has a piece with somewhere to go.
const canMove = (cells, color) => Object.keys(cells).some(sq => cells[sq] === color && destinations(cells, sq).length > 0);

// --------------------------------------------------------------------- board
const board = $("board");
function drawBoard(text, {last = null, dests = [], selected = null, flip = false} = {}) {
  const {cells} = parse(text);
  const lm = last && last !== PASS ? last.split(":") : [];
  let svg = "";
  for (let row = 0; row < 8; row++) {
    const r = flip ? row + 1 : 8 - row;
    svg += `<text class="coord" x="-0.32" y="${row + 0.58}">${r}</text>`;
    for (let col = 0; col < 8; col++) {
      const f = flip ? 7 - col : col, sq = FILES[f] + r, c = cells[sq];
      let cls = (f + r) % 2 ? "dark" : "light";  // a1 dark, as on a chess board
      if (lm.includes(sq)) cls = "last";
      if (sq === selected) cls = "sel";
      // The square a piece just left is a hole: tinted, so that the move's
      // start shows as well as its end.
      if (c === "x") cls = lm[0] === sq ? "hole left" : "hole";
      svg += `<rect class="sq ${cls}" x="${col}" y="${row}" width="1" height="1" data-square="${sq}"><title>${sq}</title></rect>`;
      if (c === "b" || c === "w") svg += `<circle class="${c === "b" ? "pb" : "pw"}" cx="${col + .5}" cy="${row + .5}" r=".36" data-square="${sq}"/>`;
      if (dests.includes(sq)) svg += `<circle class="dest" cx="${col + .5}" cy="${row + .5}" r=".15"/>`;
    }
  }
  for (let col = 0; col < 8; col++) svg += `<text class="coord" x="${col + .43}" y="8.3">${FILES[flip ? 7 - col : col]}</text>`;
  board.innerHTML = svg;
  // What a screen reader says of the board: the pieces and the holes.
  const on = c => Object.keys(cells).filter(sq => cells[sq] === c).sort().join(", ") || "none";
  board.setAttribute("aria-label", `The board. Black on ${on("b")}; White on ${on("w")}; holes: ${on("x")}.`);
}

// ------------------------------------------------------------------ players
function levelName(spec) {
  const l = S.hello && S.hello.levels.find(l => l.spec === spec);
  return l ? l.name : spec;
}
// A computer player in words: its kind and its budget, e.g. "alpha-beta
// search · 2 s a move" for alphabeta:time=2s (the spec itself shows on
// hover); a spec it cannot read is shown as it is.
const KINDS = {random: "random moves", mc: "Monte Carlo playouts", mcts: "tree search (MCTS)",
  alphabeta: "alpha-beta search", nn: "neural network search", az: "AlphaZero network"};
function describe(spec) {
  const [kind, opts = ""] = spec.split(/:(.*)/);
  if (!KINDS[kind]) return spec;
  const words = [KINDS[kind]];
  for (const opt of opts.split(",").filter(Boolean)) {
    const [k, v] = opt.split("=");
    const ms = /^(\d+)ms$/.exec(v), sec = /^(\d+(?:\.\d+)?)s$/.exec(v);
    if (k === "time" && (ms || sec)) words.push(`${ms ? +ms[1] / 1000 : +sec[1]} s a move`);
    else if (k === "depth") words.push(`depth ${v}`);
    else if (k === "threads") words.push(`${v} threads`);
    else return spec;
  }
  return words.join(" · ");
}
function playerLabel(player, name, mine = false) {
  if (player !== "human") return `${esc(levelName(player))} <small class="spec" title="${esc(player)}">${esc(describe(player))}</small>`;
  if (mine) return name ? `${esc(name)} <small>(you)</small>` : "You";
  return name ? esc(name) : "Anonymous";
}
function fmtClock(ms) {
  if (ms < 10000) return (Math.max(0, ms) / 1000).toFixed(1);
  const s = Math.ceil(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
function clockLeft(color) {
  const c = S.state && S.state.clock;
  if (!c) return null;
  const ms = c[color + "_ms"];
  return c.running === color ? ms - (performance.now() - S.stateAt) : ms;
}
function bar(el, color, player, name, score, {clock = null, running = false, online = true, turn = false, mine = false, rating = null} = {}) {
  const rated = rating === null || rating === undefined ? "" : ` <small class="rating" title="rating (Glicko-2)">(${rating})</small>`;
  let html = `<span class="who"><i class="dot ${color[0]}"></i> ${playerLabel(player, name, mine)}${rated}${online ? "" : ' <small>(away)</small>'} <small>${Number.isFinite(score) ? `${score} ${score === 1 ? "pt" : "pts"}` : "? pts"}</small>${turn ? " ◀" : ""}</span>`;
  if (clock !== null) html += `<span class="clock${running ? " run" : ""}${running && clock < 10000 ? " low" : ""}" data-color="${color}">${fmtClock(clock)}</span>`;
  el.innerHTML = html;
}
function tickClocks() {
  for (const el of document.querySelectorAll(".clock[data-color]")) {
    const ms = clockLeft(el.dataset.color);
    if (ms !== null) { el.textContent = fmtClock(ms); el.classList.toggle("low", el.classList.contains("run") && ms < 10000); }
  }
}
setInterval(tickClocks, 100);

// -------------------------------------------------------------- connection
function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  S.ws = ws;
  ws.onopen = () => {
    // A socket that reconnect() has replaced no longer speaks for the page.
    if (S.ws !== ws) return;
    S.retry = 0;
    S.offline = false;
    // The connection is back: the notes that said it was lost go.
    for (const id of ["homeMsg", "amsg"]) if ($(id).textContent === OFFLINE) $(id).textContent = "";
    if (S.wanted) send(S.wanted);
    if (S.view === "home") send({type: "lobby"});
    if (S.view === "analysis") requestAnalysis();
  };
  ws.onmessage = ev => onMessage(JSON.parse(ev.data));
  ws.onclose = () => {
    if (S.ws !== ws) return;
    S.offline = true;
    if (S.view === "game") $("status").textContent = "Connection lost: reconnecting…";
    else $(S.view === "analysis" ? "amsg" : "homeMsg").textContent = OFFLINE;
    setTimeout(connect, Math.min(10000, 500 * 2 ** S.retry++));
  };
}
// What the home and analysis views say while the server cannot be reached.
const OFFLINE = "Cannot reach the server: reconnecting…";
// Sends a message; while the socket is still opening, it waits for it;
// with the connection lost, says so (a click must not do nothing).
function send(message) {
  if (S.ws && S.ws.readyState === 1) S.ws.send(JSON.stringify(message));
  else if (S.ws && S.ws.readyState === 0) S.ws.addEventListener("open", () => send(message), {once: true});
  else showError(OFFLINE);
}
function reconnect() { const old = S.ws; S.ws = null; if (old) old.close(); connect(); }

function showError(text) {
  if (S.view === "game") {
    $("message").textContent = text;
    // A link to no game (a mistyped key, a game over and gone): say so,
    // and offer the way home rather than "Joining…" for ever.
    if (!S.state) { $("status").textContent = "This game cannot be opened"; setHTML($("actions"), `<button id="newGame" class="primary">Home</button>`); }
  } else if (S.view === "analysis") {
    // The position asked about was refused: no answer is coming.
    $("amsg").textContent = text;
    $("aeval").textContent = "?"; $("adepth").textContent = "";
    $("evalbar").firstElementChild.style.height = "50%";
  } else $("homeMsg").textContent = text;
}

function onMessage(msg) {
  switch (msg.type) {
    case "hello": S.hello = msg; renderHello(); break;
    case "welcome": onWelcome(msg); break;
    case "state": onState(msg); break;
    case "history": S.history = msg; renderGame(); break;
    case "lobby": S.lobby = msg; renderLobby(); break;
    case "analysis": S.cache.set(msg.position, msg); renderEval(); break;
    case "seat_moved": onSeatMoved(msg); break;
    case "error": showError(msg.message); break;
  }
}

// --------------------------------------------------------------------- home
function chosenColor() { return document.querySelector("input[name=color]:checked").value; }
function renderHello() {
  const h = S.hello;
  $("clock").innerHTML = h.clocks.map(c => `<option value="${esc(c)}"${c === "3+2" ? " selected" : ""}>${c === "none" ? "no clock" : esc(c)}</option>`).join("");
  $("levels").innerHTML = h.levels.map((l, i) =>
    `<button data-spec="${esc(l.spec)}" title="${esc(l.spec)}"><b>${esc(l.name)}</b><small class="spec">${esc(describe(l.spec))}</small></button>`).join("");
  $("aengine").textContent = h.analysis;
  if (document.activeElement !== $("name")) $("name").value = h.name || "";
  // Level names appear in what was drawn before they were known.
  if (S.view === "analysis" && S.an) renderAnalysis();
  else if (S.view === "game") renderGame();
  if (S.lobby) renderLobby();
}
$("levels").onclick = ev => {
  const b = ev.target.closest("button");
  if (b) send({type: "new", opponent: b.dataset.spec, color: chosenColor(), clock: $("clock").value});
};
$("friend").onclick = () => send({type: "new", opponent: "human", color: chosenColor(), clock: $("clock").value});
$("seek").onclick = () => send({type: "seek", color: chosenColor(), clock: $("clock").value});

function renderLobby() {
  const l = S.lobby;
  const clock = c => c === "none" ? "no clock" : esc(c);
  $("seeks").innerHTML = l.seeks.length ? l.seeks.map(s =>
    (s.yours ? `<li><span>Your challenge · you play ${esc(s.color)} · ${clock(s.clock)} · <i>waiting for someone to accept…</i></span>`
      : `<li><span>${s.name ? esc(s.name) : "Anonymous"}${s.rating === null ? "" : ` (${s.rating})`} · plays ${esc(s.color)} · ${clock(s.clock)}</span>`) +
    (s.yours ? `<button data-cancel>Withdraw</button>` : `<button class="primary" data-accept="${s.id}">Accept</button>`) + "</li>").join("")
    : `<li class="empty">None open. Open one: anyone may accept it.</li>`;
  S.liveExtra = [];
  renderLive();
}
$("seeks").onclick = ev => {
  const b = ev.target.closest("button");
  if (!b) return;
  if (b.dataset.accept) send({type: "accept", seek: +b.dataset.accept});
  else send({type: "cancel_seek"});
};
function liveText(g) {
  const side = (p, n) => p === "human" ? (n ? esc(n) : "Anonymous") : esc(levelName(p));
  return `${side(g.black, g.names[0])} – ${side(g.white, g.names[1])} · ${g.clock === "none" ? "no clock" : esc(g.clock)} · ${g.black_score}–${g.white_score}`;
}
// The list changes with every move of every live game. Its lines are
// updated in place, never rebuilt: a Watch link replaced between the press
// and the release of a click would swallow the click.
function renderLive() {
  const l = S.lobby, games = l.live.concat(S.liveExtra), list = $("live");
  if (!games.length) list.innerHTML = `<li class="empty">No game being played right now.</li>`;
  else if (list.querySelector(".empty")) list.innerHTML = "";
  while (games.length && list.children.length > games.length) list.lastElementChild.remove();
  games.forEach((g, i) => {
    let line = list.children[i];
    if (!line) {
      line = document.createElement("li");
      line.append(document.createElement("span"), Object.assign(document.createElement("a"), {textContent: "Watch"}));
      list.append(line);
    }
    const [span, link] = line.children, text = liveText(g), href = `/?game=${g.game}`;
    if (span.innerHTML !== text) span.innerHTML = text;
    if (link.getAttribute("href") !== href) link.setAttribute("href", href);
  });
  $("liveTotal").textContent = l.live_total ? `(${l.live_total})` : "";
  $("liveMore").hidden = games.length >= l.live_total;
}
// fetch, with a server that cannot be reached said in words (`say`, as
// "Could not <doing>: ...") rather than left to an unhandled rejection:
// null then.
async function request(url, doing, init, say = showError) {
  try {
    return await fetch(url, init);
  } catch (e) {
    say(`Could not ${doing}: the server cannot be reached`);
    return null;
  }
}
// The text of a refusal, or its status when it has none.
async function refusal(r) {
  return (await r.text().catch(() => "")) || `status ${r.status}`;
}
// A page of JSON from the server, or null after saying why not.
async function fetchJson(url, what) {
  const r = await request(url, `load ${what}`);
  if (!r) return null;
  try {
    if (r.ok) return await r.json();
    showError(`Could not load ${what}: ${await refusal(r)}`);
  } catch (e) {
    // Reached, but the answer was cut short or is not JSON.
    showError(`Could not load ${what}: the server's answer was unreadable (${e.message})`);
  }
  return null;
}
$("liveMore").onclick = async () => {
  const page = await fetchJson(`/live?offset=${S.lobby.live.length + S.liveExtra.length}&limit=20`, "more games");
  if (page) { S.liveExtra = S.liveExtra.concat(page.games); renderLive(); }
};

// The rules, stepped through two opening moves on the board.
const RULES = [
  [START, null, [], "Yolah is played on a chess board. Black and White have four pieces each; Black moves first."],
  [START, "d5", null, "A piece moves like a chess queen: as far as it likes in a straight line, but never onto or across another piece or a hole."],
  ["w6b/1b6/8/3xw3/3wb3/8/8/b6w w 1 0 1", "d5:b7", [], "Black plays d5:b7. The square it left becomes a hole: nobody may land on it or cross it again. Each move scores one point: Black 1, White 0."],
  ["w6b/1b6/8/3xw3/3wb3/8/8/b6w w 1 0 1", "e5", null, "Now White. Holes block like pieces, so the board shrinks with every move."],
  ["w6b/1b6/8/3xxw2/3wb3/8/8/b6w b 1 1 2", "e5:f5", [], "White plays e5:f5: one point each. Cut your opponent off from the open squares and keep some for yourself."],
  ["w6b/1b6/8/3xxw2/3wb3/8/8/b6w b 1 1 2", null, [], "A side with no move passes (shown as “pass”). When neither side can move the game ends: most points wins. Pick a level under “Play the computer” and try it."],
];
function renderRule() {
  const [text, mark, dests, words] = RULES[S.rule];
  const cells = parse(text).cells;
  const isMove = mark && mark.includes(":");
  const sel = mark && !isMove ? mark : null;
  drawBoard(text, {last: isMove ? mark : null, selected: sel, dests: dests || (sel ? destinations(cells, sel) : [])});
  $("ruleText").textContent = words;
  $("ruleStep").textContent = `${S.rule + 1} / ${RULES.length}`;
  $("rulePrev").disabled = S.rule === 0;
  $("ruleNext").textContent = S.rule === RULES.length - 1 ? "Again" : "Next ▶";
  const p = parse(text);
  bar($("top"), "white", "human", "White", p.white);
  bar($("bottom"), "black", "human", "Black", p.black);
}
$("rulePrev").onclick = () => { S.rule = Math.max(0, S.rule - 1); renderRule(); };
$("ruleNext").onclick = () => { S.rule = (S.rule + 1) % RULES.length; renderRule(); };

// The archive: finished games, newest first, a page at a time.
async function loadGames() {
  const page = await fetchJson(`/games?limit=20${S.archiveNext ? `&before=${S.archiveNext}` : ""}`, "the finished games");
  if (!page) return;
  for (const g of page.games) {
    const li = document.createElement("li");
    const side = (p, n) => p === "human" ? (n || "Anonymous") : levelName(p);
    li.innerHTML = `<span>#${g.id} ${esc(side(g.black, g.names[0]))} – ${esc(side(g.white, g.names[1]))} · ${esc(g.result)} · ${g.plies} plies</span><a href="/?replay=${g.id}">Analyse</a>`;
    $("games").appendChild(li);
  }
  if (!page.games.length && !$("games").children.length) $("games").innerHTML = `<li class="empty">No finished game yet (games shorter than 10 plies are not listed).</li>`;
  S.archiveNext = page.next_before;
  $("more").hidden = !S.archiveNext;
}
$("archive").addEventListener("toggle", ev => { if (ev.target.open && !$("games").children.length) loadGames(); });
$("more").onclick = loadGames;

// Names: kept in a cookie the server signs; the connection reads it.
$("me").onsubmit = async ev => {
  ev.preventDefault();
  // Said under the header, whatever the view: the form is in every one.
  const say = text => { $("nameMsg").textContent = text; $("nameMsg").hidden = !text; };
  say("");
  const r = await request("/name", "change your name", {method: "POST", body: $("name").value}, say);
  if (!r) return;
  if (!r.ok) { say(`Your name was not changed: ${await refusal(r)}`); return; }
  say("");
  $("name").blur();
  reconnect();
};

// -------------------------------------------------------------------- sound
// A short tone for each move, a lower one for a pass, a chord when a game
// ends: made with Web Audio (nothing to fetch). The header's button mutes
// it; the choice is kept in this browser.
const sound = {on: localStorage.getItem("sound") !== "off", ctx: null, played: 0};
function tone(freqs, ms) {
  if (!sound.on) return;
  try {
    sound.ctx = sound.ctx || new AudioContext();
    const t = sound.ctx.currentTime, end = t + ms / 1000;
    for (const f of freqs) {
      const osc = sound.ctx.createOscillator(), gain = sound.ctx.createGain();
      osc.type = "triangle"; osc.frequency.value = f;
      gain.gain.setValueAtTime(0.12, t); gain.gain.exponentialRampToValueAtTime(0.001, end);
      osc.connect(gain).connect(sound.ctx.destination);
      osc.start(t); osc.stop(end);
    }
    sound.played++;
  } catch (e) { sound.on = false; } // no audio in this browser
}
function renderSound() {
  // A speaker, with waves or crossed out (drawn: no emoji font needed).
  const mark = sound.on ? `<path d="M16 8.5a5 5 0 0 1 0 7M18.5 6a8.5 8.5 0 0 1 0 12"/>` : `<path d="M16 9l6 6M22 9l-6 6"/>`;
  $("sound").innerHTML = `<svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true"><path d="M3 9h4l5-4v14l-5-4H3z" fill="currentColor"/><g stroke="currentColor" stroke-width="2" fill="none">${mark}</g></svg>`;
  $("sound").setAttribute("aria-pressed", String(sound.on));
  $("sound").title = sound.on ? "sound on: click to mute" : "sound off: click to hear moves";
}
$("sound").onclick = () => {
  sound.on = !sound.on;
  localStorage.setItem("sound", sound.on ? "on" : "off");
  // A browser lets a page play sound once someone has clicked in it.
  if (sound.on && sound.ctx) sound.ctx.resume();
  renderSound();
};
renderSound();
function soundFor(before, st) {
  if (!before || before.game !== st.game) return;
  if (!before.game_over && st.game_over) tone([523, 659, 784], 450);
  else if (st.moves.length > before.moves.length) tone(st.moves[st.moves.length - 1] === PASS ? [220] : [660], 90);
}

// --------------------------------------------------------------------- game
function onWelcome(msg) {
  // An invite comes with a game's first welcome only: kept across
  // reconnections to the same game, dropped for another.
  const same = S.game === msg.game;
  S.invite = msg.invite || (same ? S.invite : null);
  S.role = msg.role; S.key = msg.key || null; S.game = msg.game;
  if (msg.role !== "watcher") S.moved = null;
  S.watch = msg.watch || S.watch;
  // Back to the same game (a reconnection): what is shown stays until the
  // server's state replaces it.
  if (!same) { S.history = null; S.viewPly = null; S.selected = null; S.state = null; S.confirmResign = false; S.watch = msg.watch || null; }
  if (msg.role === "watcher" && !msg.key) { S.wanted = {type: "watch", game: msg.game}; history.replaceState(null, "", `/?game=${msg.game}`); }
  else { S.wanted = {type: "join", key: msg.key}; history.replaceState(null, "", `/?${msg.role === "watcher" ? "watch" : "play"}=${msg.key}`); }
  show("game");
}
// This player opened the game in another tab or window, which plays it
// now; this one watches it (or, when the game has its most watchers,
// leaves it), and "Play here" takes the seat back with the key.
function onSeatMoved(msg) {
  S.moved = {key: S.key, watching: msg.watching};
  S.role = "watcher"; S.selected = null; S.confirmResign = false;
  // A reconnection watches rather than taking the seat back unasked.
  S.wanted = msg.watching ? {type: "watch", game: msg.game} : null;
  renderGame();
}
function onState(msg) {
  const before = S.state;
  S.state = msg; S.stateAt = performance.now(); S.selected = null; S.states++;
  soundFor(before, msg);
  if (S.history && S.history.moves.length < msg.moves.length && S.viewPly === null) S.history = null;
  $("message").textContent = "";
  if (before && msg.moves.length > before.moves.length && msg.moves[msg.moves.length - 1] === PASS)
    $("message").textContent = "A side with no move passed.";
  // A move this page did not make is read out (the board is a picture).
  if (before && msg.moves.length === before.moves.length + 1) {
    const n = msg.moves.length, mover = n % 2 ? "black" : "white", m = msg.moves[n - 1];
    if (mover !== S.role) $("said").textContent = `${mover === "black" ? "Black" : "White"} ${m === PASS ? "passed" : `played ${m}`}`;
  }
  if (S.view !== "game") show("game"); else renderGame();
}
const seated = () => S.role === "black" || S.role === "white";
const myTurn = () => S.state && seated() && S.state.legal.length > 0 && S.state.turn === S.role && S.viewPly === null;
// A stored reason as the page says it: "black resigned" → "Black resigned".
const sentence = reason => (reason || "").replace(/^(black|white)\b/, c => c[0].toUpperCase() + c.slice(1));
function winnerText(st) {
  if (st.winner === "draw") return "Draw";
  const w = st.winner === "black" ? "Black" : "White";
  if (seated()) return st.winner === S.role ? `You win (${w})` : `You lose (${w} wins)`;
  return `${w} wins`;
}

function renderGame() {
  const st = S.state;
  if (!st) return;
  const flip = S.role === "white";
  const reviewing = S.viewPly !== null && S.history;
  const text = reviewing ? S.history.positions[S.viewPly] : st.position;
  const ply = reviewing ? S.viewPly : st.moves.length;
  const last = ply > 0 ? st.moves[ply - 1] : null;
  const dests = myTurn() && S.selected ? st.legal.filter(m => m.startsWith(S.selected + ":")).map(m => m.slice(3)) : [];
  drawBoard(text, {last, dests, selected: S.selected, flip});
  const p = parse(text), c = st.clock;
  const sides = {
    black: [st.black, st.names[0], p.black, {clock: c ? clockLeft("black") : null, running: c && c.running === "black", online: st.connected[0], turn: !st.game_over && st.turn === "black", mine: S.role === "black", rating: st.ratings[0]}],
    white: [st.white, st.names[1], p.white, {clock: c ? clockLeft("white") : null, running: c && c.running === "white", online: st.connected[1], turn: !st.game_over && st.turn === "white", mine: S.role === "white", rating: st.ratings[1]}],
  };
  const [low, high] = flip ? ["white", "black"] : ["black", "white"];
  bar($("bottom"), low, ...sides[low]);
  bar($("top"), high, ...sides[high]);
  // Status and result.
  let status;
  if (st.stopped) status = st.stopped;
  else if (st.game_over) status = `Game over · Black ${st.black_score} point${st.black_score === 1 ? "" : "s"}, White ${st.white_score}`;
  else if (reviewing) status = `Looking at ply ${S.viewPly} of ${st.moves.length}: ▶| to go back`;
  else if (myTurn()) status = "Your move";
  else {
    // A computer to move is named, and said to think: a newcomer waiting
    // on it knows why nothing happens yet.
    const player = st.turn === "black" ? st.black : st.white;
    status = player === "human" ? `${st.turn === "black" ? "Black" : "White"} to move` : `${levelName(player)} is thinking…`;
    if (S.role === "watcher") status += " (you are watching)";
  }
  if (c && !st.game_over && st.moves.length === 0) status += " · the clocks start with Black's first move";
  if (!st.game_over && st.draw_offer && seated()) status += st.draw_offer === S.role ? " · you offer a draw" : " · your opponent offers a draw";
  if (!st.game_over && st.takeback && seated()) status += st.takeback === S.role ? " · you ask to take back your move" : " · your opponent asks to take back their move";
  if (S.moved && !st.game_over) status = `This game is now played in another tab or window; ${S.moved.watching ? "you are watching it here" : "this one no longer follows it"}`;
  // Stepping through the moves keeps saying the connection is lost.
  if (S.offline) status = "Connection lost: reconnecting…";
  $("status").textContent = status;
  $("result").hidden = !st.game_over;
  if (st.game_over) $("result").textContent = `${winnerText(st)}: ${sentence(st.reason)}`;
  renderActions();
  renderMoves($("moves"), st.moves, ply);
  $("typed").hidden = !seated() || st.game_over;
  renderLinks();
}

function renderActions() {
  const st = S.state, el = $("actions");
  const b = (id, label, cls = "") => `<button id="${id}"${cls ? ` class="${cls}"` : ""}>${label}</button>`;
  let html = "";
  const people = st.black === "human" && st.white === "human";
  if (seated() && !st.game_over && !st.stopped) {
    html += b("resign", S.confirmResign ? "Sure? Resign" : "Resign");
    if (people) {
      if (st.draw_offer && st.draw_offer !== S.role) html += b("drawYes", "Accept draw", "primary") + b("drawNo", "Decline");
      else if (st.draw_offer === S.role) html += `<span class="note">Draw offered</span>`;
      else html += b("drawOffer", "Offer draw");
      // A takeback: Black moves at even plies, White at odd ones.
      const mine = st.moves.some((m, i) => m !== PASS && (i % 2 === 0) === (S.role === "black"));
      if (st.takeback && st.takeback !== S.role) html += b("takebackYes", "Accept takeback", "primary") + b("takebackNo", "Decline");
      else if (st.takeback === S.role) html += `<span class="note">Takeback asked</span>`;
      else if (mine) html += b("takebackAsk", "Take back");
    }
  }
  if (S.moved && !st.game_over) html += b("playHere", "Play here", "primary");
  if (st.game_over) {
    if (seated()) {
      const theirs = st.rematch && st.rematch !== S.role;
      html += st.rematch === S.role ? `<span class="note">Rematch asked…</span>` : b("rematch", theirs ? "Accept rematch" : "Rematch", "primary");
    }
    html += b("newGame", "New game") + b("analyse", "Analyse");
  }
  if (S.viewPly !== null) html += b("live", "Back to the game ▶|");
  setHTML(el, html);
}
$("actions").onclick = ev => {
  const id = ev.target.id;
  if (id === "resign") {
    if (!S.confirmResign) { S.confirmResign = true; renderActions(); setTimeout(() => { S.confirmResign = false; if (S.state) renderActions(); }, 3000); return; }
    send({type: "resign"});
  } else if (id === "drawOffer" || id === "drawYes") send({type: "offer_draw"});
  else if (id === "drawNo") send({type: "decline_draw"});
  else if (id === "takebackAsk" || id === "takebackYes") send({type: "takeback"});
  else if (id === "takebackNo") send({type: "decline_takeback"});
  else if (id === "rematch") send({type: "rematch"});
  else if (id === "playHere") send({type: "join", key: S.moved.key});
  else if (id === "newGame") location.href = "/";
  else if (id === "analyse") location.href = `/?replay=${S.state.game}`;
  else if (id === "live") { S.viewPly = null; renderGame(); }
};

// A move list: numbered pairs, passes spelt out, the current ply marked.
function renderMoves(el, moves, ply) {
  let html = "";
  for (let i = 0; i < moves.length; i += 2) {
    html += `<span class="n">${i / 2 + 1}.</span>`;
    for (const j of [i, i + 1]) {
      html += j < moves.length ? `<span class="m${j + 1 === ply ? " cur" : ""}" data-ply="${j + 1}">${moves[j] === PASS ? "pass" : moves[j]}</span>` : "<span></span>";
    }
  }
  el.innerHTML = html || `<span></span><span class="note">No move yet.</span>`;
  // The current move kept in view by scrolling the list alone:
  // scrollIntoView would scroll the page too, and on a phone the board's
  // top row and the opponent's name went off-screen as a game went on.
  const cur = el.querySelector(".cur");
  if (cur) {
    const box = el.getBoundingClientRect(), r = cur.getBoundingClientRect();
    if (r.top < box.top) el.scrollTop -= box.top - r.top;
    else if (r.bottom > box.bottom) el.scrollTop += r.bottom - box.bottom;
  }
}
$("moves").onclick = ev => {
  const ply = ev.target.dataset.ply;
  if (ply) goPly(+ply);
};
function goPly(ply) {
  const st = S.state;
  if (!st) return;
  ply = Math.max(0, Math.min(st.moves.length, ply));
  S.viewPly = ply === st.moves.length ? null : ply;
  if (S.viewPly !== null && !S.history) send({type: "history"});
  S.selected = null;
  renderGame();
}

function link(label, key, param) {
  return `<label>${label}<input readonly value="${esc(`${location.origin}/?${param}=${key}`)}"></label>`;
}
function renderLinks() {
  const st = S.state;
  let html = "";
  const waiting = st && st.black === "human" && st.white === "human" && !(st.connected[0] && st.connected[1]) && !st.game_over;
  if (S.invite && waiting) html += `<p class="note"><b>Send this link to your opponent</b> (the clock starts with Black's first move):</p>` + link("", S.invite, "play");
  if (S.watch) html += link("Watch link", S.watch, "watch");
  if (seated() && S.key) html += link("Your link, to come back", S.key, "play") + `<p><a href="/record?key=${esc(S.key)}">Download the game (JSON)</a></p>`;
  setHTML($("links"), html);
  $("links").hidden = !html;
}
$("links").addEventListener("click", ev => { if (ev.target.tagName === "INPUT") ev.target.select(); });

board.addEventListener("click", ev => {
  if (S.view !== "game" || !myTurn()) return;
  const sq = ev.target.dataset && ev.target.dataset.square;
  if (!sq) return;
  const move = S.selected && `${S.selected}:${sq}`;
  if (move && S.state.legal.includes(move)) { S.selected = null; send({type: "move", move}); return; }
  // A click that is not a move says why, as a typed move does, and keeps
  // the selection; one's own piece again (or another that can move)
  // changes it.
  let why = "";
  if (sq === S.selected) S.selected = null;
  else if (S.state.legal.some(m => m.startsWith(sq + ":"))) S.selected = sq;
  else if (S.selected) why = `${S.selected} cannot go to ${sq}: click a marked square, or another of your pieces.`;
  else why = "Click one of your pieces that can move, then one of the squares it marks.";
  $("message").textContent = why;
  renderGame();
});
$("typed").onsubmit = ev => {
  ev.preventDefault();
  let m = $("typedMove").value.trim().toLowerCase().replace(/[\s-]/g, "");
  if (/^[a-h][1-8][a-h][1-8]$/.test(m)) m = m.slice(0, 2) + ":" + m.slice(2);
  if (!myTurn()) { $("message").textContent = "It is not your move."; return; }
  if (!S.state.legal.includes(m)) { $("message").textContent = `${m || "that"} is not a legal move here (type it as d5:b7).`; return; }
  $("typedMove").value = "";
  send({type: "move", move: m});
};

// ----------------------------------------------------------------- analysis
async function openReplay(id) {
  // Whatever goes wrong, the analysis board opens on the start and its
  // title says why: no such game (404, or an id that is not a number),
  // no server, or an answer that cannot be read.
  const instead = why => {
    openPosition(START);
    S.an.title = () => `${why}: the board shows the start.`;
    renderAnalysis();
  };
  let r, h;
  try {
    r = await fetch(`/games/${encodeURIComponent(id)}/history`);
  } catch (e) {
    return instead(`Could not load game ${id}, the server cannot be reached`);
  }
  if (r.status === 404 || r.status === 400) return instead(`No finished game numbered ${id}`);
  if (!r.ok) return instead(`Could not load game ${id} (${await refusal(r)})`);
  try {
    h = await r.json();
    const history = h && Array.isArray(h.positions) && Array.isArray(h.moves)
      && h.positions.length === h.moves.length + 1 && h.positions.every(p => typeof p === "string");
    if (!history) throw new Error("not a game's history");
  } catch (e) {
    return instead(`Could not load game ${id}, the server's answer was unreadable (${e.message})`);
  }
  const names = h.names || [null, null];
  // A finished game (resigned, lost on time or agreed drawn too) ends on
  // a position where no one is to move.
  S.an = {positions: h.positions, moves: h.moves, ply: h.moves.length, players: [h.black, h.white], names, finished: true,
    title: () => {
      const side = (p, n) => p === "human" ? (n || "Anonymous") : levelName(p);
      return `Game ${id}: ${side(h.black, names[0])} – ${side(h.white, names[1])}, ${h.result}${h.reason ? ` (${sentence(h.reason)})` : ""}`;
    }};
  $("download").hidden = false; $("download").href = `/games/${encodeURIComponent(id)}`;
  show("analysis");
}
function openPosition(text) {
  S.an = {positions: [text], moves: [], ply: 0, players: ["human", "human"], names: ["Black", "White"], title: () => "Analysis board"};
  $("download").hidden = true;
  show("analysis");
}
let analysisTimer = null;
function requestAnalysis() {
  clearTimeout(analysisTimer);
  const pos = S.an && S.an.positions[S.an.ply];
  if (!pos || S.cache.has(pos)) return;
  // Stepping quickly asks only about the position stepped to.
  analysisTimer = setTimeout(() => send({type: "analyse", position: pos}), 250);
}
function renderAnalysis() {
  const a = S.an;
  const text = a.positions[a.ply];
  drawBoard(text, {last: a.ply > 0 ? a.moves[a.ply - 1] : null});
  const p = parse(text);
  // A finished position (neither side can move, or a finished game's
  // last) has no side to move.
  const over = (a.finished && a.ply === a.moves.length) || (!canMove(p.cells, "b") && !canMove(p.cells, "w"));
  bar($("bottom"), "black", a.players[0], a.names[0], p.black, {turn: !over && p.side === "b"});
  bar($("top"), "white", a.players[1], a.names[1], p.white, {turn: !over && p.side === "w"});
  $("atitle").textContent = a.title();
  // Stepping through the game keeps saying the server is away.
  $("amsg").textContent = S.offline ? OFFLINE : "";
  $("ply").textContent = `ply ${a.ply} / ${a.moves.length}`;
  renderMoves($("amoves"), a.moves, a.ply);
  if (document.activeElement !== $("postext")) $("postext").value = text;
  renderEval();
  requestAnalysis();
}
function renderEval() {
  if (!S.an) return;
  const a = S.cache.get(S.an.positions[S.an.ply]);
  const fill = $("evalbar").firstElementChild;
  if (!a) { $("aeval").textContent = "…"; $("adepth").textContent = "the engine is thinking"; $("aline").textContent = ""; $("asolved").textContent = ""; return; }
  const s = a.score;
  let words;
  if (s === null) words = "?";
  else if (Math.abs(s) > 29000) words = s > 0 ? "Black wins" : "White wins";
  else words = (s > 0 ? "+" : "") + (s / 100).toFixed(1);
  $("aeval").textContent = words;
  $("adepth").textContent = `points ahead for Black${a.depth ? ` · depth ${a.depth}` : ""}`;
  $("aline").textContent = a.line.length ? "Line: " + a.line.map(m => m === PASS ? "pass" : m).join(" ") : "";
  const m = a.solved_margin;
  $("asolved").textContent = m === null ? "" : m === 0 ? "Solved: a draw with best play." : `Solved: ${m > 0 ? "Black" : "White"} wins by ${Math.abs(m)} with best play.`;
  // The bar shows Black's expected result, rising from Black's side.
  fill.style.height = `${Math.round(100 * (a.black_win_rate ?? 0.5))}%`;
}
const stepTo = ply => { if (!S.an) return; S.an.ply = Math.max(0, Math.min(S.an.moves.length, ply)); renderAnalysis(); };
$("first").onclick = () => stepTo(0);
$("prev").onclick = () => stepTo(S.an.ply - 1);
$("next").onclick = () => stepTo(S.an.ply + 1);
$("last").onclick = () => stepTo(S.an.moves.length);
$("amoves").onclick = ev => { if (ev.target.dataset.ply) stepTo(+ev.target.dataset.ply); };
$("posform").onsubmit = ev => {
  ev.preventDefault();
  const text = $("postext").value.trim().replace(/\s+/g, " ");
  history.replaceState(null, "", `/?analyse=${encodeURIComponent(text)}`);
  openPosition(text);
};
document.addEventListener("keydown", ev => {
  if (ev.target.tagName === "INPUT") return;
  const step = {ArrowLeft: -1, ArrowRight: 1}[ev.key];
  if (S.view === "analysis" && S.an) {
    if (step) stepTo(S.an.ply + step);
    else if (ev.key === "Home") stepTo(0);
    else if (ev.key === "End") stepTo(S.an.moves.length);
    else return;
  } else if (S.view === "game" && S.state) {
    const cur = S.viewPly === null ? S.state.moves.length : S.viewPly;
    if (step) goPly(cur + step);
    else if (ev.key === "Home") goPly(0);
    else if (ev.key === "End") goPly(S.state.moves.length);
    else return;
  } else return;
  ev.preventDefault();
});

// -------------------------------------------------------------------- views
function show(view) {
  S.view = view;
  $("home").hidden = view !== "home";
  $("game").hidden = view !== "game";
  $("analysis").hidden = view !== "analysis";
  $("evalbar").hidden = view !== "analysis";
  if (view === "home") renderRule();
  else if (view === "game") renderGame();
  else renderAnalysis();
}

if (params.get("play")) S.wanted = {type: "join", key: params.get("play")};
else if (params.get("watch")) S.wanted = {type: "join", key: params.get("watch")};
else if (params.get("game")) S.wanted = {type: "watch", game: +params.get("game")};
if (params.get("replay")) openReplay(params.get("replay"));
else if (params.get("analyse")) openPosition(params.get("analyse"));
else if (S.wanted) { show("game"); $("status").textContent = "Joining…"; }
else show("home");
connect();
