// End-to-end: a person plays a whole game against `random` by clicking in
// headless Chromium. Usage: node e2e.mjs PATH_TO_YOLAH [SCREENSHOT.png]
import { chromium } from "playwright-core";
import { spawn } from "node:child_process";

const [yolah, screenshot] = process.argv.slice(2);
const server = spawn(yolah, ["serve", "--port", "0", "--players", "random", "--db", ":memory:"],
                     { stdio: ["ignore", "ignore", "pipe"] });
const url = await new Promise((resolve, reject) => {
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

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
let failed = false;
try {
  const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
  page.on("pageerror", e => { failed = true; console.error("page error:", e.message); });
  await page.goto(url);
  await page.waitForFunction(() => document.querySelectorAll("#opponent option").length > 1);
  await page.selectOption("#opponent", "random");
  await page.selectOption("#color", "black");
  await page.click("#start");
  let moves = 0;
  for (;;) {
    await page.waitForFunction(() => state && (state.game_over || state.turn === role));
    const s = await page.evaluate("({over: state.game_over, legal: state.legal, n: state.moves.length})");
    if (s.over) break;
    // An illegal click first: an empty square that is no destination does nothing.
    await page.locator("[data-square='b2']").last().click();
    const move = s.legal[(moves * 7) % s.legal.length];
    const [from, to] = move.split(":");
    // Click what a person sees on top: the piece, then the destination dot.
    await page.locator(`[data-square='${from}']`).last().click();
    if (moves === 8 && screenshot) await page.screenshot({ path: screenshot });
    await page.locator(`[data-square='${to}']`).last().click();
    await page.waitForFunction(n => state.moves.length > n, s.n);
    moves++;
  }
  const status = await page.textContent("#status");
  const scores = await page.textContent("#scores");
  console.log(`browser game over after ${moves} clicked moves: ${status} | ${scores}`);
  if (!/Game over/.test(status) || !/black .* \d+ — ○ white .* \d+/.test(scores)) {
    throw new Error(`unexpected end: ${status} ${scores}`);
  }
  // The replay controls step through the finished game.
  await page.waitForFunction(() => history !== null);
  await page.click("#first");
  const ply = await page.textContent("#ply");
  if (!ply.startsWith("ply 0/")) throw new Error(`replay shows ${ply}`);
  // The archive lists the finished game, and its replay view opens from it.
  await page.goto(url);
  await page.click("#archive summary");
  await page.waitForSelector("#games li a");
  await page.click("#games li a");
  await page.waitForFunction(() => history !== null && /^Game \d+: /.test(document.getElementById("status").textContent));
  await page.click("#prev");
  const archived = await page.textContent("#ply");
  const total = await page.evaluate("history.moves.length");
  if (archived !== `ply ${total - 1}/${total}`) throw new Error(`archive replay shows ${archived}`);
  console.log(`archive: ${await page.textContent("#status")}, ${total} plies, stepped back to ${archived}`);
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  await browser.close();
  server.kill();
}
process.exit(failed ? 1 : 0);
