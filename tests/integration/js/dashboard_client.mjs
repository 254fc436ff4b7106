// Drives the dashboard of `orrery serve` in Debian's headless chromium with
// playwright-core (tests/integration/dashboard_browser_test.cc):
//   node dashboard_client.mjs URL LOOP_TO_TRIGGER SCREENSHOT_DIR
// Prints one JSON document: the loops' rows as rendered, whether a script in
// a name ran, the trigger's run seen finishing without a reload, and the
// console's errors. Screenshots go to SCREENSHOT_DIR.
import { chromium } from "playwright-core";

const [url, loopToTrigger, shots] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.ORRERY_CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
const report = { rows: [], injected: false, reloaded: null, triggered: null, errors: [] };
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on("pageerror", (error) => report.errors.push(String(error)));
  page.on("console", (message) => {
    if (message.type() === "error") report.errors.push(message.text());
  });
  page.on("dialog", async (dialog) => { report.injected = true; await dialog.dismiss(); });
  await page.goto(url);
  await page.waitForSelector("#loops tbody tr", { timeout: 15000 });
  await page.waitForFunction(() => document.getElementById("live").textContent === "live",
                             null, { timeout: 15000 });
  report.rows = await page.$$eval("#loops tbody tr", (rows) => rows.map((row) => ({
    name: row.querySelector(".name").textContent,
    nameChildren: row.querySelector(".name").children.length,
    cells: [...row.children].map((cell) => cell.textContent),
  })));
  report.injected = report.injected || await page.evaluate(() => window.__orrery_injected === true);
  await page.screenshot({ path: shots + "/dashboard.png", fullPage: true });

  // A marker survives only if the page is not loaded again.
  await page.evaluate(() => { window.__still_here = true; });
  const row = page.locator("#loops tbody tr", { has: page.locator(".name", { hasText: loopToTrigger }) });
  await row.locator("button[data-action=trigger]").click();
  await page.waitForFunction((name) => {
    for (const r of document.querySelectorAll("#loops tbody tr")) {
      if (r.querySelector(".name").textContent === name) {
        return r.querySelector(".last").textContent.startsWith("succeeded");
      }
    }
    return false;
  }, loopToTrigger, { timeout: 20000 });
  report.triggered = await row.locator(".last").textContent();
  report.reloaded = !(await page.evaluate(() => window.__still_here === true));
  await page.screenshot({ path: shots + "/dashboard-after-trigger.png", fullPage: true });
} catch (error) {
  report.failure = String(error);
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(report) + "\n");
