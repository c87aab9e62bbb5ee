// End-to-end in headless Chromium, two people and a watcher against one
// `yolah serve` (its default levels and analysis player): Ada on a desktop (1200×900), Bob on a phone (390×844),
// Cy watching. Checks the list: the home page's board and rules,
// a challenge opened by one and accepted by the other, a timed game lost
// on time, a rematch, a draw agreed, a friend invited by link, a move
// taken back, and a rated game
// typed move by move in which the server plays two passes (shown as
// "pass"), the solver's result on the analysis board, the live list
// updated by itself, a game against the computer by clicks, a
// resignation, the analysis board with the engine's evaluation and the
// scores and marked move of every ply, the archive, a whole game clicked
// to its end, links to no game or a bad position (and a game whose
// history cannot be fetched or read), and the sound of moves
// (and a page muted). With a directory argument, each
// screen's screenshot goes there (docs/site for the docs).
// Usage: node e2e.mjs PATH_TO_YOLAH [SCREENSHOT_DIR]
import { chromium } from "playwright-core";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const [yolah, shots] = process.argv.slice(2);
const db = join(mkdtempSync(join(tmpdir(), "yolah-e2e-")), "games.db");
// A fixed port, so that the pages can reconnect to the server restarted.
const port = await new Promise(resolve => {
  const probe = createServer().listen(0, "127.0.0.1", () => { const p = probe.address().port; probe.close(() => resolve(p)); });
});
let server;
function startServer() {
  server = spawn(yolah, [
    "serve", "--port", String(port), "--db", db,
    "--clocks", "0.2+0", "3+2", "--analysis-time", "500ms",
  ], { stdio: ["ignore", "ignore", "pipe"] });
  return new Promise((resolve, reject) => {
    let err = "";
    server.stderr.on("data", d => {
      err += d;
      // Wait for the whitespace after the address: stderr may arrive in
      // pieces, and a piece can end inside it ("http://127.0.0.1" before ":port").
      const m = err.match(/serving (http:\/\/\S+)\s/);
      if (m) resolve(m[1]);
    });
    server.on("exit", code => reject(new Error(`yolah serve exited (${code}): ${err}`)));
  });
}
const url = await startServer();
// Resolves once `child` has exited (at once if it already has).
const exited = child => child.exitCode !== null || child.signalCode !== null
  ? Promise.resolve()
  : new Promise(resolve => child.once("exit", resolve));

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const WAIT = { timeout: 60_000 };
let failed = false;
const check = (ok, what) => { if (!ok) throw new Error(what); };
const log = (...a) => console.log(...a);

async function person(viewport, phone) {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, isMobile: phone, hasTouch: phone });
  const page = await context.newPage();
  page.on("pageerror", e => { failed = true; console.error("page error:", e.message); });
  page.setDefaultTimeout(60_000);
  return page;
}
async function shot(page, name) {
  if (shots) await page.screenshot({ path: join(shots, `${name}.png`) });
}
async function setName(page, name) {
  await page.fill("#name", name);
  await page.click("#saveName");
  await page.waitForFunction(n => S.hello && S.hello.name === n, name, WAIT);
}
const text = (page, sel) => page.textContent(sel);
async function waitText(page, sel, pattern) {
  await page.waitForFunction(([s, p]) => new RegExp(p).test(document.querySelector(s).textContent), [sel, pattern], WAIT);
}
async function clickSquare(page, sq) { await page.locator(`[data-square='${sq}']`).last().click(); }
async function moves(page) { return page.evaluate(() => S.state ? S.state.moves.length : -1); }
async function waitMoves(page, n) { await page.waitForFunction(n => S.state && S.state.moves.length >= n, n, WAIT); }
// A move by clicking what a person sees on top: the piece, then its dot.
async function clickMove(page, move) {
  const n = await moves(page);
  const [from, to] = move.split(":");
  await clickSquare(page, from);
  await page.waitForSelector("circle.dest", WAIT);
  await clickSquare(page, to);
  await waitMoves(page, n + 1);
}
async function myTurn(page) {
  await page.waitForFunction(() => S.state && (S.state.game_over || (S.state.turn === S.role && S.state.legal.length)), null, WAIT);
  return page.evaluate(() => S.state.game_over ? null : S.state.legal);
}

try {
  const ada = await person({ width: 1200, height: 900 }, false);
  const bob = await person({ width: 390, height: 844 }, true);

  // The home page: the board is drawn before anything else; the rules step
  // through the book's first moves on it.
  await ada.goto(url);
  await ada.waitForSelector("#levels button");
  check(await ada.locator("#board rect.sq").count() === 64, "the home page draws the board");
  check(await ada.locator("#board circle.pb, #board circle.pw").count() === 8, "eight pieces");
  const levels = await ada.locator("#levels button b").allTextContents();
  check(levels[0] === "Beginner" && levels[levels.length - 1] === "Strongest", `levels ${levels}`);
  check(await ada.getAttribute("#levels button:last-child", "data-spec") === "nn:time=2s", "nn is the strongest level");
  // Levels say what they are in words, the spec on hover.
  const inWords = await ada.locator("#levels button small").allTextContents();
  check(inWords[0] === "random moves" && inWords[inWords.length - 1] === "neural network search · 2 s a move", `levels in words: ${inWords}`);
  check(/^The board\. Black on a1, d5, e4, h8; White on a8, d4, e5, h1; holes: none\.$/.test(await ada.getAttribute("#board", "aria-label")), "the board in words");
  await ada.click("#ruleNext");
  check(await ada.locator("circle.dest").count() > 5, "step 2 shows where d5 may go");
  await ada.click("#ruleNext");
  check(await ada.locator("[data-square='d5'].hole").count() === 1, "step 3: d5 is a hole");
  check(/Black 1, White 0/.test(await text(ada, "#ruleText")), "step 3 explains the points");
  await shot(ada, "rules-desktop");
  await ada.click("#rulePrev"); await ada.click("#rulePrev");
  await setName(ada, "Ada");
  await ada.goto(url);
  await ada.waitForSelector("#levels button");
  await shot(ada, "home-desktop");
  check(await ada.inputValue("#name") === "Ada", "the name comes back from the cookie");
  log("home: board, rules stepped, levels", levels.join(", "));

  // A challenge opened on the desktop, accepted on the phone.
  await bob.goto(url);
  await bob.waitForSelector("#levels button");
  // On a phone the first screen shows the board and the first levels.
  const first = await bob.locator("#levels button").first().boundingBox();
  check(first.y + first.height <= 844, `a level button on the phone's first screen (bottom at ${first.y + first.height} px)`);
  await bob.click("#ruleNext"); await bob.click("#ruleNext");
  await shot(bob, "rules-phone");
  await bob.click("#rulePrev"); await bob.click("#rulePrev");
  await setName(bob, "Bob");
  await ada.selectOption("#clock", "0.2+0");
  await ada.click("#seek");
  await ada.waitForSelector("#seeks button[data-cancel]", WAIT);
  check(/Your challenge · you play black · 0.2\+0 · waiting/.test(await text(ada, "#seeks")), "Ada sees she waits");
  await shot(ada, "lobby-desktop");
  await bob.waitForSelector("#seeks button[data-accept]", WAIT);
  check(/Ada · plays black · 0.2\+0/.test(await text(bob, "#seeks")), "Bob sees Ada's challenge");
  await shot(bob, "home-phone");
  await bob.locator("#seeks").scrollIntoViewIfNeeded();
  await shot(bob, "lobby-phone");
  await bob.click("#seeks button[data-accept]");
  await waitText(ada, "#status", "Your move");
  await waitText(bob, "#status", "Black to move");
  check(await ada.evaluate(() => S.role) === "black" && await bob.evaluate(() => S.role) === "white", "colours as asked");
  check(/Bob/.test(await text(ada, "#top")) && /Ada/.test(await text(bob, "#top")), "names on the bars");
  log("challenge: opened by Ada, accepted by Bob");

  // A timed game lost on time: Bob (White) never moves after Ada's move.
  await clickMove(ada, "d5:b7");
  await bob.waitForSelector(".clock.run", WAIT);
  await shot(bob, "game-phone");
  await waitText(bob, "#result", "White ran out of time");
  check(/You lose/.test(await text(bob, "#result")), "Bob lost on time");
  await waitText(ada, "#result", "You win \\(Black\\): White ran out of time");
  await shot(ada, "over-desktop");
  log("flag:", await text(ada, "#result"));

  // A rematch, colours swapped; a move typed; a draw agreed.
  await bob.click("#rematch");
  await ada.waitForFunction(() => document.getElementById("rematch")?.textContent === "Accept rematch", null, WAIT);
  const firstGame = await ada.evaluate(() => S.state.game);
  await ada.click("#rematch");
  await ada.waitForFunction(g => S.state && S.state.game !== g && S.role === "white", firstGame, WAIT);
  await bob.waitForFunction(g => S.state && S.state.game !== g && S.role === "black", firstGame, WAIT);
  await bob.fill("#typedMove", "d5b7");
  await bob.press("#typedMove", "Enter");
  await waitMoves(ada, 1);
  check((await ada.evaluate(() => S.state.moves))[0] === "d5:b7", "the typed move was played");
  await ada.click("#drawOffer");
  await bob.waitForSelector("#drawYes", WAIT);
  await shot(bob, "over-phone-draw-offered");
  await bob.click("#drawYes");
  await waitText(ada, "#result", "Draw: draw agreed");
  await waitText(bob, "#result", "Draw: draw agreed");
  log("rematch, typed move, draw:", await text(bob, "#result"));

  // A friend by link, no clock: every move typed (the keyboard's way in),
  // a game in which White must pass twice (random:seed=175 against
  // random:seed=1175, found with `yolah play`); the server plays the
  // passes and the move list says so.
  await ada.click("#newGame");
  await ada.waitForURL(url, WAIT);
  await ada.waitForSelector("#levels button");
  await ada.selectOption("#clock", "none");
  await ada.click("#friend");
  const invite = await ada.locator("#links input").first().inputValue();
  check(/Send this link to your opponent/.test(await text(ada, "#links")) && /\?play=[0-9a-f]+$/.test(invite), `the invite link ${invite}`);
  await shot(ada, "friend-desktop");
  await bob.goto(invite);
  // Bob mutes the page; Ada hears every move.
  await bob.click("#sound");
  check(await bob.getAttribute("#sound", "aria-pressed") === "false", "Bob's page is muted");
  await ada.waitForFunction(() => S.state.connected[1], null, WAIT);
  check(await text(ada, "#status") === "Your move" && await bob.evaluate(() => S.role) === "white", "Bob seated by the link");
  await shot(bob, "friend-phone");
  check(!/Send this link/.test(await text(ada, "#links")), "the invite is gone once the friend is seated");
  check(await ada.locator(".clock").count() === 0, "no clock");
  const passGame = ("d5:b5 e5:h2 a1:a3 h2:b2 h8:h6 d4:g1 a3:d6 a8:a4 e4:c2 g1:g2 c2:b1 a4:a5 b5:c4 g2:f3 " +
    "h6:d2 a5:d8 d6:d7 f3:f1 d2:c1 f1:f2 c4:d3 d8:f6 d7:e7 f2:e2 e7:g7 f6:f4 d3:b3 b2:a2 g7:g4 f4:g5 " +
    "c1:e1 g5:h5 g4:h3 h5:h4 h3:g3 e2:e3 b3:b4 a1:a1 b4:c3 a1:a1 e1:d1").split(" ");
  // A move taken back, asked by Ada, accepted by Bob.
  await ada.fill("#typedMove", "d5:b7");
  await ada.press("#typedMove", "Enter");
  await waitMoves(ada, 1);
  await ada.click("#takebackAsk");
  await bob.waitForSelector("#takebackYes", WAIT);
  check(/your opponent asks to take back their move/.test(await text(bob, "#status")), "Bob is asked");
  await shot(bob, "takeback-phone");
  await bob.click("#takebackYes");
  await ada.waitForFunction(() => S.state.moves.length === 0 && !S.state.takeback, null, WAIT);
  check(await text(ada, "#status") === "Your move", "Ada moves again");
  log("takeback: d5:b7 asked back by Ada, accepted by Bob");
  // Ada opens her game in a second tab: it plays there, the first tab
  // watches and says so, and "Play here" brings the seat back.
  const tab = await ada.context().newPage();
  tab.on("pageerror", e => { failed = true; console.error("page error:", e.message); });
  await tab.goto(ada.url());
  await waitText(tab, "#status", "^Your move$");
  await waitText(ada, "#status", "^This game is now played in another tab or window; you are watching it here$");
  check(await ada.locator("circle.pb, circle.pw").count() === 8 && await ada.evaluate(() => S.role) === "watcher", "the first tab watches");
  await ada.click("#playHere");
  await waitText(ada, "#status", "^Your move$");
  await waitText(tab, "#status", "in another tab or window");
  await tab.close();
  log("a second tab took Ada's seat over; the first one watched, then took it back");
  for (const [i, move] of passGame.entries()) {
    if (move === "a1:a1") continue;
    const mover = i % 2 ? bob : ada;
    await mover.waitForFunction(i => S.state.moves.length === i && S.state.turn === S.role, i, WAIT);
    await mover.fill("#typedMove", move);
    await mover.press("#typedMove", "Enter");
  }
  await waitText(ada, "#result", "You win \\(Black\\): neither side can move");
  await waitText(bob, "#result", "You lose \\(Black wins\\)");
  // A game between two named people from one machine (both browsers
  // come from 127.0.0.1): unrated, as one person with two cookies could
  // otherwise farm a rating. Rated games, from two addresses, are tested
  // against the server process (serve_site, serve_people), where a client
  // can choose its address; a browser cannot.
  const [adaRating, bobRating] = await ada.evaluate(() => S.state.ratings ?? [null, null]);
  check(adaRating === null && bobRating === null, `unrated from one address: ${adaRating}, ${bobRating}`);
  check(!/\(\d{3,4}\)/.test(await text(ada, "#bottom")) && !/\(\d{3,4}\)/.test(await text(bob, "#top")), "no rating on the bars");
  const heard = await ada.evaluate(() => sound.played), bobHeard = await bob.evaluate(() => sound.played);
  check(heard >= passGame.length / 2 && bobHeard === 0, `sounds: Ada ${heard}, Bob (muted) ${bobHeard}`);
  const shownMoves = await ada.locator("#moves .m").allTextContents();
  check(shownMoves.length === 41 && shownMoves[37] === "pass" && shownMoves[39] === "pass" && shownMoves[40] === "e1:d1",
    `passes in the move list: ${shownMoves.slice(36).join(" ")}`);
  check(/^Game over · Black \d+ points?, White \d+$/.test(await text(bob, "#status")), "the final score");
  await bob.evaluate(() => scrollTo(0, 0));
  await shot(bob, "over-phone");
  log(`a friend by link, ${passGame.length} plies typed or passed: ${await text(ada, "#result")}; moves 36–41 ${shownMoves.slice(35).join(" ")}; ${heard} sounds for Ada, none for Bob (muted); unrated (one address)`);

  // Its endgame on the analysis board: the solver's exact result.
  await ada.click("#analyse");
  await ada.waitForURL(/replay=/, WAIT);
  await ada.waitForFunction(() => typeof S !== "undefined" && S.an, null, WAIT);
  check((await ada.locator("#amoves .m").allTextContents())[37] === "pass", "the pass on the analysis board");
  await ada.keyboard.press("End");
  await ada.keyboard.press("ArrowLeft");
  await ada.keyboard.press("ArrowLeft");
  await ada.waitForFunction(() => S.an.ply === 39, null, WAIT);
  await waitText(ada, "#asolved", "^Solved: Black wins by \\d+ with best play\\.$");
  log(`the endgame at ply 39: ${await text(ada, "#aeval")}, ${await text(ada, "#asolved")}`);

  // Against the computer: Ada by clicks (desktop), Bob as White (phone).
  await ada.goto(url);
  await ada.waitForSelector("#levels button");
  await ada.selectOption("#clock", "3+2");
  // The colour choice takes the keyboard's focus (hidden from sight only).
  await ada.focus("input[value=white]");
  check(await ada.evaluate(() => document.activeElement.value) === "white", "the colour choice is reachable by keyboard");
  await ada.click("#levels button[data-spec='random']");
  for (let i = 0; i < 4; i++) {
    const legal = await myTurn(ada);
    await clickMove(ada, legal[(i * 7) % legal.length]);
  }
  await myTurn(ada);
  // The computer's reply is read out to a screen reader.
  const them = await ada.evaluate(() => S.role === "black" ? "White" : "Black");
  check(new RegExp(`^${them} (played [a-h][1-8]:[a-h][1-8]|passed)$`).test(await text(ada, "#said")), `the reply read out: ${await text(ada, "#said")}`);
  const legal = await ada.evaluate(() => S.state.legal);
  await clickSquare(ada, legal[0].split(":")[0]);
  await shot(ada, "game-desktop");
  // A square the selected piece cannot reach says why and keeps the
  // selection; the piece clicked again drops it.
  const from = legal[0].split(":")[0];
  const unreachable = await ada.evaluate(from => "abcdefgh".split("").flatMap(f => "12345678".split("").map(r => f + r))
    .find(sq => sq !== from && !S.state.legal.some(m => m === `${from}:${sq}` || m.startsWith(sq + ":"))), from);
  await clickSquare(ada, unreachable);
  check(/cannot go to/.test(await text(ada, "#message")) && await ada.evaluate(() => S.selected) === from, "an unreachable square says why");
  await clickSquare(ada, from);
  check(await ada.evaluate(() => S.selected) === null && await text(ada, "#message") === "", "the piece clicked again is dropped");
  await clickSquare(ada, from);
  // The live list, open before Bob's game starts: it comes in by itself.
  const cy = await person({ width: 1200, height: 900 }, false);
  await cy.goto(url);
  await cy.waitForFunction(() => /Ada/.test(document.getElementById("live").textContent), null, WAIT);
  const liveBefore = await cy.locator("#live li a").count();
  await bob.click("#newGame");
  await bob.waitForURL(url, WAIT);
  await bob.waitForSelector("#levels button");
  check(await bob.getAttribute("#sound", "aria-pressed") === "false", "muted stays muted");
  await bob.click("label:has(input[value=white])");
  await bob.locator("#levels button").nth(1).click();
  // Casual thinks half a second on its first move: long enough to be seen.
  await waitText(bob, "#status", "^Casual is thinking…");
  await waitMoves(bob, 1);

  // Bob's game joins the list on Cy's page (no reload); a watcher from it.
  await cy.waitForFunction(n => document.querySelectorAll("#live li a").length === n + 1, liveBefore, WAIT);
  const live = (await text(cy, "#live")).replace(/\s+/g, " ");
  check(/Ada – Beginner · 3\+2/.test(live), "the live list shows Ada's game");
  await shot(cy, "live-desktop");
  if (shots) {
    const phone = await person({ width: 390, height: 844 }, true);
    await phone.goto(url);
    await phone.waitForFunction(() => document.querySelectorAll("#live li a").length >= 2, null, WAIT);
    await phone.locator("#live").scrollIntoViewIfNeeded();
    await shot(phone, "live-phone");
    await phone.locator("#live li", { hasText: "Ada" }).locator("a").click();
    await phone.waitForFunction(() => typeof S !== "undefined" && S.role === "watcher" && S.state, null, WAIT);
    await shot(phone, "watch-phone");
    await phone.context().close();
  }
  await cy.locator("#live li", { hasText: "Ada" }).locator("a").click();
  await cy.waitForURL(/game=/, WAIT);
  await cy.waitForFunction(() => typeof S !== "undefined" && S.role === "watcher" && S.state, null, WAIT);
  check(/you are watching|Your move|to move/.test(await text(cy, "#status")), "Cy watches");
  await shot(cy, "watch-desktop");
  log("live list:", live);

  // kill -9 mid-game and a restart on the same database: the pages
  // reconnect by themselves, the game and its clock come back.
  const before = await ada.evaluate(() => ({ moves: S.state.moves.length, black: S.state.clock.black_ms, states: S.states }));
  const cyStates = await cy.evaluate(() => S.states);
  // A visitor on the home page meanwhile: told the server is gone (a click
  // says so again rather than doing nothing), and untold once it is back.
  const visitor = await person({ width: 1200, height: 900 }, false);
  await visitor.goto(url);
  await visitor.waitForSelector("#levels button");
  // The database's lock goes with the process, which a loaded machine may
  // not have torn down yet when the pages see the connection drop.
  const gone = exited(server);
  server.kill("SIGKILL");
  await waitText(ada, "#status", "Connection lost");
  await waitText(visitor, "#homeMsg", "Cannot reach the server");
  const said = await visitor.evaluate(() => {
    const msg = document.getElementById("homeMsg");
    msg.textContent = "";
    document.getElementById("friend").click();
    return msg.textContent;
  });
  check(/Cannot reach the server/.test(said), `a click while offline says: ${said}`);
  await gone;
  await startServer();
  await waitText(visitor, "#homeMsg", "^$");
  await visitor.context().close();
  // A state from the new server (more states than before the kill).
  await ada.waitForFunction(b => S.states > b.states && S.state.moves.length === b.moves && S.state.clock.running === "black", before, WAIT);
  const after = await ada.evaluate(() => S.state.clock.black_ms);
  check(after >= before.black - 1000, `Black's clock after the restart: ${after} ms, before ${before.black} ms`);
  await cy.waitForFunction(([seen, n]) => S.states > seen && S.state.moves.length === n, [cyStates, before.moves], WAIT);
  log(`kill -9 and restart: both pages back at ply ${before.moves}, Black's clock ${before.black} → ${after} ms`);

  // A resignation, seen by the watcher.
  await ada.click("#resign");
  await ada.click("#resign");
  await waitText(ada, "#result", "You lose \\(White wins\\): Black resigned");
  await waitText(cy, "#result", "White wins: Black resigned");
  const resigned = await ada.evaluate(() => S.state.game);
  const plies = await ada.evaluate(() => S.state.moves.length);

  // The analysis board: the engine's evaluation, and the scores of every
  // ply stepped through with the arrow keys.
  await ada.click("#analyse");
  await ada.waitForURL(/replay=/, WAIT);
  await ada.waitForFunction(() => typeof S !== "undefined" && S.an && document.getElementById("aeval").textContent !== "…", null, WAIT);
  const evaluation = `${await text(ada, "#aeval")} (${await text(ada, "#aline")})`;
  check(/Line: /.test(evaluation), "the engine's line");
  const barHeight = await ada.evaluate(() => document.querySelector("#evalbar div").style.height);
  check(/^\d+%$/.test(barHeight), `the evaluation bar (${barHeight})`);
  await shot(ada, "analysis-desktop");
  await ada.keyboard.press("Home");
  for (let ply = 0; ply <= plies; ply++) {
    const shown = await ada.evaluate(() => {
      const [, , b, w] = S.an.positions[S.an.ply].split(" ");
      const pts = id => +document.getElementById(id).textContent.match(/(\d+) pts?/)[1];
      const cur = document.querySelector("#amoves .cur");
      return { ply: S.an.ply, b: +b, w: +w, black: pts("bottom"), white: pts("top"), label: document.getElementById("ply").textContent,
               marked: cur ? +cur.dataset.ply : 0 };
    });
    check(shown.ply === ply && shown.label === `ply ${ply} / ${plies}`, `stepped to ${ply}: ${JSON.stringify(shown)}`);
    check(shown.marked === ply, `the move list marks ply ${ply}: ${JSON.stringify(shown)}`);
    check(shown.black === shown.b && shown.white === shown.w, `scores at ply ${ply}: ${JSON.stringify(shown)}`);
    await ada.keyboard.press("ArrowRight");
  }
  await ada.keyboard.press("ArrowLeft");
  await ada.waitForFunction(n => S.an.ply === n - 1, plies, WAIT);
  log(`analysis: ${evaluation}, scores right at all ${plies + 1} plies`);
  await bob.goto(`${url}?replay=${resigned}`);
  await bob.waitForFunction(() => S.an && document.getElementById("aeval").textContent !== "…", null, WAIT);
  await shot(bob, "analysis-phone");

  // A whole game clicked to its end; the archive lists it.
  await ada.goto(url);
  await ada.waitForSelector("#levels button");
  await ada.click("#levels button[data-spec='random']");
  let clicked = 0;
  for (;;) {
    const legal = await myTurn(ada);
    if (!legal) break;
    // A stray click first: it says why, or selects b2 if Ada can move it,
    // and plays nothing (not on the move's own piece: a second click there
    // would drop the selection).
    const next = legal[(clicked * 7) % legal.length];
    if (!next.startsWith("b2:")) await clickSquare(ada, "b2");
    await clickMove(ada, next);
    clicked++;
  }
  await waitText(ada, "#result", "neither side can move");
  log(`a whole game, ${clicked} clicked moves: ${await text(ada, "#result")}`);
  const whole = await ada.evaluate(() => S.state.game);
  await ada.goto(url);
  await ada.click("#archive summary");
  await ada.waitForSelector(`#games a[href='/?replay=${whole}']`, WAIT);
  await ada.click(`#games a[href='/?replay=${whole}']`);
  await ada.waitForURL(/replay=/, WAIT);
  await ada.waitForFunction(() => typeof S !== "undefined" && S.an && S.an.moves.length > 0, null, WAIT);
  // Its last position: no one is to move, so neither bar is marked.
  const marked = await ada.evaluate(() => ["top", "bottom"].filter(id => document.getElementById(id).textContent.includes("◀")));
  if (marked.length) throw new Error(`a finished game's last position marks a side to move: ${marked}`);
  log(`archive: game ${whole} listed, opened on the analysis board, no side to move at its end`);

  // Links to nothing say so, and lead home.
  await bob.goto(`${url}?play=00000000000000000000000000000000`);
  await waitText(bob, "#status", "This game cannot be opened");
  check(/unknown key/.test(await text(bob, "#message")), "the reason");
  await bob.click("#actions #newGame");
  await bob.waitForURL(url, WAIT);
  await bob.goto(`${url}?replay=999999`);
  await waitText(bob, "#atitle", "No finished game numbered 999999");
  await bob.goto(`${url}?replay=abc`);
  await waitText(bob, "#atitle", "No finished game numbered abc");
  // A history that cannot be fetched, or is not JSON, is said so, not
  // shown as a missing game or a blank page.
  await bob.route("**/games/*/history", route => route.abort());
  await bob.goto(`${url}?replay=${whole}`);
  await waitText(bob, "#atitle", `Could not load game ${whole}, the server cannot be reached`);
  await bob.unroute("**/games/*/history");
  await bob.route("**/games/*/history", route => route.fulfill({ status: 200, body: "<html>" }));
  await bob.goto(`${url}?replay=${whole}`);
  await waitText(bob, "#atitle", "the server's answer was unreadable");
  await bob.unroute("**/games/*/history");
  await bob.route("**/games/*/history", route => route.fulfill({ status: 200, body: '{"positions": [], "moves": []}' }));
  await bob.goto(`${url}?replay=${whole}`);
  await waitText(bob, "#atitle", "unreadable \\(not a game's history\\)");
  await bob.unroute("**/games/*/history");
  // The name form says so under the header, and leaves the view alone.
  await bob.route("**/name", route => route.abort());
  await bob.fill("#name", "Bobby");
  await bob.click("#saveName");
  await waitText(bob, "#nameMsg", "Could not change your name: the server cannot be reached");
  check(!/name/.test(await text(bob, "#amsg")), "the analysis view is left alone");
  await bob.unroute("**/name");
  await bob.fill("#name", "Bob");
  const [saved] = await Promise.all([bob.waitForResponse(r => r.url().endsWith("/name"), WAIT), bob.click("#saveName")]);
  check(saved.ok(), "the name is saved once the server answers");
  await bob.waitForFunction(() => document.querySelector("#nameMsg").hidden, null, WAIT);
  await bob.route("**/games/*/history", route => route.fulfill({ status: 503, body: "busy" }));
  await bob.goto(`${url}?replay=${whole}`);
  await waitText(bob, "#atitle", `Could not load game ${whole} \\(busy\\)`);
  await bob.unroute("**/games/*/history");
  log("replays that fail:", await text(bob, "#atitle"));
  await bob.goto(`${url}?analyse=garbage`);
  await waitText(bob, "#amsg", "bad position");
  check(await text(bob, "#aeval") === "?", "no answer is awaited");
  log("bad links:", await text(bob, "#amsg"));
  await cy.close();
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  await browser.close();
  server.kill();
  await exited(server);
  rmSync(dirname(db), { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
