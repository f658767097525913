// Load one page in a running headless Chromium over the DevTools protocol (no Playwright: its
// browser download cannot work offline) and print what a person would see, as JSON:
//   requests  every URL the page asked for, after the page itself
//   errors    console errors, uncaught exceptions, log errors (a CSP refusal is one)
//   text      document.body.innerText; html: the DOM serialised after scripts ran
//   filtered  rows left visible after typing QUERY into the first filter box (-1: no box)
//   alerts    JavaScript dialogs the page opened (a sample's script would)
// usage: node --experimental-websocket browser_page.js WS_URL PAGE_URL QUERY SCREENSHOT
"use strict";
const [wsUrl, pageUrl, query, shot] = process.argv.slice(2);
const ws = new WebSocket(wsUrl);
let next = 1;
const waiting = new Map();
const out = { requests: [], errors: [], alerts: [] };
let session = null;
let loaded = null;
const loadedP = new Promise((r) => { loaded = r; });

function send(method, params, sessionId) {
  const id = next++;
  ws.send(JSON.stringify({ id, method, params: params || {}, sessionId }));
  return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
}

ws.onmessage = (m) => {
  const msg = JSON.parse(m.data);
  if (msg.id && waiting.has(msg.id)) {
    const w = waiting.get(msg.id);
    waiting.delete(msg.id);
    if (msg.error) w.reject(new Error(JSON.stringify(msg.error))); else w.resolve(msg.result);
    return;
  }
  const p = msg.params || {};
  switch (msg.method) {
    case "Network.requestWillBeSent": out.requests.push(p.request.url); break;
    case "Runtime.consoleAPICalled": if (p.type === "error") out.errors.push(JSON.stringify(p.args)); break;
    case "Runtime.exceptionThrown": out.errors.push(JSON.stringify(p.exceptionDetails)); break;
    case "Log.entryAdded": if (p.entry.level === "error") out.errors.push(p.entry.text); break;
    case "Page.javascriptDialogOpening":
      out.alerts.push(p.message);
      send("Page.handleJavaScriptDialog", { accept: true }, session);
      break;
    case "Page.loadEventFired": loaded(); break;
  }
};

async function main() {
  await new Promise((r) => { ws.onopen = r; });
  const { targetId } = await send("Target.createTarget", { url: "about:blank" });
  ({ sessionId: session } = await send("Target.attachToTarget", { targetId, flatten: true }));
  for (const d of ["Page", "Network", "Runtime", "Log"]) await send(d + ".enable", {}, session);
  await send("Emulation.setDeviceMetricsOverride", { width: 1280, height: 1600, deviceScaleFactor: 1, mobile: false }, session);
  await send("Page.navigate", { url: pageUrl }, session);
  await loadedP;
  await new Promise((r) => setTimeout(r, 300));
  const expr = `(() => {
    const box = document.querySelector(".tools input[type=search]");
    let filtered = -1;
    if (box) {
      box.value = ${JSON.stringify(query)};
      box.dispatchEvent(new Event("input"));
      const t = box.parentNode.nextElementSibling.querySelector("table");
      filtered = Array.from(t.tBodies[0].rows).filter((r) => !r.hidden).length;
      box.value = ""; box.dispatchEvent(new Event("input"));
    }
    return JSON.stringify({ text: document.body.innerText, html: document.documentElement.outerHTML,
                            title: document.title, filtered, scripts: document.scripts.length,
                            styles: document.querySelectorAll("style").length,
                            jsLinks: document.querySelectorAll('a[href^="javascript" i]').length,
                            handlers: Array.from(document.querySelectorAll("*")).filter((e) =>
                              Array.from(e.attributes).some((a) => a.name.startsWith("on"))).length });
  })()`;
  const r = await send("Runtime.evaluate", { expression: expr, returnByValue: true }, session);
  Object.assign(out, JSON.parse(r.result.value));
  if (shot) {
    const s = await send("Page.captureScreenshot", { format: "png" }, session);
    require("fs").writeFileSync(shot, Buffer.from(s.data, "base64"));
  }
  out.requests = out.requests.filter((u) => u !== pageUrl);
  ws.close();
  process.stdout.write(JSON.stringify(out), () => process.exit(0));
}
main().catch((e) => { process.stderr.write(String(e.stack || e)); process.exit(1); });
