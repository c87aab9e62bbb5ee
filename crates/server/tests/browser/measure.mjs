// Measures the page over loopback in headless Chromium: first paint and
// first contentful paint (the performance timeline's paint entries) of the
// home page and of a game page, each in a fresh browser context (nothing
// cached), and the bytes the page fetches.
// Usage: node measure.mjs PATH_TO_YOLAH [RUNS]   (a release build)
import { chromium } from "playwright-core";
import { spawn } from "node:child_process";

const [yolah, runsArg] = process.argv.slice(2);
const runs = +(runsArg || 10);
const server = spawn(yolah, ["serve", "--port", "0", "--db", ":memory:"], { stdio: ["ignore", "ignore", "pipe"] });
const url = await new Promise((resolve, reject) => {
  let err = "";
  server.stderr.on("data", d => { err += d; const m = err.match(/serving (http:\/\/\S+)\s/); if (m) resolve(m[1]); });
  server.on("exit", code => reject(new Error(`yolah serve exited (${code}): ${err}`)));
});
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
});

async function paints(target) {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  await page.goto(target, { waitUntil: "load" });
  // The board is drawn: the page's own first picture is complete.
  await page.waitForSelector("#board rect.sq");
  const t = await page.evaluate(() => {
    const p = Object.fromEntries(performance.getEntriesByType("paint").map(e => [e.name, e.startTime]));
    const res = performance.getEntriesByType("resource").map(r => [r.name.replace(location.origin, ""), r.transferSize, r.decodedBodySize]);
    const nav = performance.getEntriesByType("navigation")[0];
    return { fp: p["first-paint"], fcp: p["first-contentful-paint"], html: [nav.transferSize, nav.decodedBodySize], res };
  });
  await context.close();
  return t;
}
const stats = xs => { const s = [...xs].sort((a, b) => a - b); return { best: s[0], median: s[Math.floor(s.length / 2)] }; };
const fmt = ({ best, median }) => `best ${best.toFixed(1)} ms, median ${median.toFixed(1)} ms`;

try {
  // A game page: a game against the computer, opened by its link.
  const page = await browser.newPage();
  await page.goto(url);
  await page.click("#levels button[data-spec='random']");
  await page.waitForURL(/play=/);
  const game = page.url();
  await page.close();
  for (const [name, target] of [["home /", url], ["game /?play=KEY", game]]) {
    const all = [];
    for (let i = 0; i < runs; i++) all.push(await paints(target));
    console.log(`${name}: first paint ${fmt(stats(all.map(t => t.fp)))}; first contentful paint ${fmt(stats(all.map(t => t.fcp)))} (${runs} cold loads)`);
    const last = all[all.length - 1];
    console.log(`  bytes: document ${last.html[1]} (${last.html[0]} on the wire); ` +
      last.res.map(([n, wire, body]) => `${n} ${body} (${wire} on the wire)`).join("; "));
  }
} finally {
  await browser.close();
  server.kill();
}
