// SPDX-License-Identifier: MIT
// The page's script (server/page/index.html). Everything it shows comes from
// the server's API: the formats and their layouts from GET /v1/formats, an
// ID's fields from GET /v1/{format}/{id} or GET /v1/inspect/{id}. No format
// is known here by name.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const SVGNS = "http://www.w3.org/2000/svg";
  const SECRET_KEY = "mintid-secret";
  // Light fills under dark text; neighbours differ in hue and lightness.
  const COLOURS = ["#9ecae1", "#fdae6b", "#a1d99b", "#d4b9da", "#fdd49e", "#c7e9c0", "#fcbba1", "#bdbdbd"];

  let formats = []; // GET /v1/formats
  let shown = null; // the inspection on show, and the text it was read from
  let pending = null; // what to do again once a secret is given
  let serial = 0; // only the latest lookup is shown

  class AuthNeeded extends Error {}

  function secret() {
    try {
      return sessionStorage.getItem(SECRET_KEY);
    } catch (e) {
      return null;
    }
  }

  // GET path, as JSON: {code, body}. A 401 or 429 throws AuthNeeded.
  async function api(path) {
    const headers = { Accept: "application/json" };
    const s = secret();
    // A secret is bytes (a line of the auth file) and a header value one byte per character: its UTF-8, so.
    if (s) headers.Authorization = "Bearer " + String.fromCharCode(...new TextEncoder().encode(s));
    const r = await fetch(path, { headers, cache: "no-store", credentials: "omit", redirect: "error" });
    const text = await r.text();
    let body;
    try {
      body = JSON.parse(text);
    } catch (e) {
      body = { error: text.trim() || `the server answered ${r.status}` };
    }
    // 429: too many wrong secrets; the prompt stays, with the server's "try again in ..." reason.
    if (r.status === 401 || r.status === 429) throw new AuthNeeded(body.error || "this server needs a secret");
    return { code: r.status, body };
  }

  function say(message, isError = false) {
    const s = $("status");
    s.textContent = message;
    s.classList.toggle("error", isError);
  }

  // Runs action; a 401 on the way asks for the secret and runs it again once given.
  async function run(action) {
    pending = action;
    try {
      await action();
      pending = null;
    } catch (e) {
      if (e instanceof AuthNeeded) {
        const had = secret() !== null;
        $("auth").hidden = false;
        $("auth-error").textContent = had ? `The secret was refused: ${e.message}` : "";
        say("This server needs a secret: enter it above.", true);
        $("secret").focus();
      } else {
        say(`Failed: ${e.message}`, true);
      }
    }
  }

  function el(tag, attrs = {}, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function svg(tag, attrs = {}, text) {
    const e = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // As mintid writes a time: toISOString gives a year past 9999 six digits (+010889), mintid five (+10889).
  function utc(ms) {
    const d = new Date(ms);
    return isNaN(d) ? `Unix ms ${ms}` : d.toISOString().replace(/^([+-])0(\d{5})/, "$1$2");
  }

  function localTime(ms) {
    const d = new Date(ms);
    if (isNaN(d)) return "past the dates this browser can show";
    return new Intl.DateTimeFormat(undefined, {
      year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit",
      second: "2-digit", fractionalSecondDigits: 3, hour12: false, timeZoneName: "short",
    }).format(d);
  }

  // Whether the browser's zone keeps UTC's time all through the year of ms: UTC by any of its
  // names, including those Chromium does not call UTC (a TZ of GMT is "+00:00" to it), or a zone
  // such as Africa/Abidjan that is UTC in all but name. A row of local time would repeat UTC's then.
  function zoneIsUtc(ms) {
    const d = new Date(ms), year = isNaN(d) ? new Date().getUTCFullYear() : d.getUTCFullYear();
    for (let month = 0; month < 12; month++) {
      const first = new Date(0);
      first.setUTCFullYear(year, month, 1); // not Date.UTC, which reads years 0 to 99 as 1900 to 1999
      if (first.getTimezoneOffset() !== 0) return false;
    }
    return isNaN(d) || d.getTimezoneOffset() === 0;
  }

  function age(ms) {
    const diff = ms - Date.now();
    const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
    const units = [["year", 31556952000], ["day", 86400000], ["hour", 3600000], ["minute", 60000], ["second", 1000]];
    for (const [unit, len] of units) {
      if (Math.abs(diff) >= len || unit === "second") {
        const exact = `${Math.abs(diff).toLocaleString()} ms ${diff <= 0 ? "ago" : "ahead"}`;
        return `${rtf.format(Math.trunc(diff / len), unit)} (${exact})`;
      }
    }
    return "";
  }

  function years(ms) {
    return (ms / 31556952000).toFixed(1);
  }

  // A field's value, read from the ID's hex by its offset and width (most significant bit first).
  function fieldValue(hex, bits, f) {
    const v = (BigInt("0x" + hex) >> BigInt(bits - f.offset - f.bits)) & ((1n << BigInt(f.bits)) - 1n);
    return f.bits <= 53 ? v.toString() : "0x" + v.toString(16).padStart(Math.ceil(f.bits / 4), "0");
  }

  // The bit layout of fmt as an SVG bar of fields; with hex, each labelled with its value too.
  function layout(fmt, hex, width) {
    const W = Math.max(280, Math.floor(width)), scale = (W - 2) / fmt.bits;
    const barTop = 2, barH = 30, viewH = 14;
    const bar = fmt.fields.filter((f) => f.role !== "view"), views = fmt.fields.filter((f) => f.role === "view");
    const all = bar.concat(views);
    const cols = Math.max(1, Math.min(all.length, Math.floor(W / 170))), slot = W / cols, boxH = hex ? 64 : 46;
    const rows = Math.ceil(all.length / cols), labelsTop = barTop + barH + (views.length ? viewH + 2 : 0) + 26;
    const H = labelsTop + rows * boxH;
    const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img", class: "layout",
      "data-format": fmt.name, "data-bits": fmt.bits });
    const words = all.map((f) => `${f.name}: ${f.bits} bits` + (hex ? ` = ${fieldValue(hex, fmt.bits, f)}` : ""));
    root.append(svg("title", {}, `${fmt.name}, ${fmt.bits} bits, most significant first`));
    root.append(svg("desc", {}, words.join("; ")));
    const leads = svg("g", { "aria-hidden": "true" }); // under the labels
    root.append(leads);
    all.forEach((f, i) => {
      const view = f.role === "view", colour = COLOURS[i % COLOURS.length];
      const x = 1 + f.offset * scale, w = Math.max(1, f.bits * scale);
      const y = view ? barTop + barH + 2 : barTop, h = view ? viewH : barH;
      const value = hex ? fieldValue(hex, fmt.bits, f) : null;
      const r = svg("rect", { x, y, width: w, height: h, fill: colour, class: view ? "view" : "field",
        "data-name": f.name, "data-bits": f.bits, "data-offset": f.offset });
      if (value !== null) r.setAttribute("data-value", value);
      r.append(svg("title", {}, words[i]));
      root.append(r);
      const col = i % cols, row = Math.floor(i / cols);
      const bx = col * slot + 4, by = labelsTop + row * boxH;
      leads.append(svg("line", { class: "lead", x1: x + w / 2, y1: y + h, x2: bx + 6, y2: by + 2 }));
      root.append(svg("rect", { x: bx, y: by + 2, width: 12, height: 12, fill: colour, stroke: "#555" }));
      const span = f.bits === 1 ? `1 bit, bit ${f.offset}` : `${f.bits} bits, ${f.offset}–${f.offset + f.bits - 1}`;
      const lines = [[f.name, "name"], [span, "bits"]];
      if (value !== null) lines.push([value, "value"]);
      lines.forEach(([t, cls], k) => {
        const attrs = { x: bx + (k === 0 ? 18 : 0), y: by + 13 + k * 17, class: cls };
        if (t.length * 7.9 > slot - 10 - (k === 0 ? 18 : 0)) {
          attrs.textLength = slot - 10 - (k === 0 ? 18 : 0);
          attrs.lengthAdjust = "spacingAndGlyphs";
        }
        root.append(svg("text", attrs, t));
      });
    });
    return root;
  }

  function renderFormats() {
    const list = $("format-list"), width = list.clientWidth || 600;
    list.replaceChildren();
    for (const f of formats) {
      const box = el("section", { class: "format", "aria-label": f.name, "data-format": f.name });
      box.append(el("h3", {}, f.name + (f.served ? "" : " (not served here)")));
      box.append(el("p", {}, f.title));
      const capacity = f.capacity_per_ms ? `${f.capacity_per_ms} IDs per ms per generator`
        : "no practical limit per ms";
      box.append(el("p", { class: "help" },
        `${f.bits} bits; forms: ${f.forms.join(", ")}; ${capacity}. ` +
        `Lifespan: from ${utc(f.epoch_ms)} until ${utc(f.end_ms)} (${years(f.end_ms - f.epoch_ms)} years).`));
      box.append(layout(f, null, width));
      list.append(box);
    }
  }

  function renderShown() {
    if (shown === null) return;
    const fmt = formats.find((f) => f.name === shown.info.format);
    const fig = $("layout");
    fig.replaceChildren();
    if (fmt) fig.append(layout(fmt, shown.info.hex, fig.clientWidth || 600));
  }

  async function loadFormats() {
    const { code, body } = await api("/v1/formats");
    if (code !== 200) throw new Error(body.error || `GET /v1/formats answered ${code}`);
    formats = body;
    const select = $("format"), keep = select.value;
    while (select.options.length > 1) select.remove(1);
    for (const f of formats) {
      const note = f.served ? "" : ", not served here";
      select.append(el("option", { value: f.name }, `${f.name} (${f.bits} bits)${note}`));
    }
    select.value = keep;
    renderFormats();
    updateMint();
    document.body.dataset.ready = "1";
  }

  function chosenFormat() {
    return $("format").value || (shown ? shown.info.format : "");
  }

  function updateMint() {
    const name = chosenFormat(), fmt = formats.find((f) => f.name === name), button = $("mint");
    button.disabled = !fmt || !fmt.served;
    button.textContent = !fmt ? "Mint a new ID (choose a format)"
      : fmt.served ? `Mint a new ${name} ID` : `${name} is not served here`;
  }

  function share(text, fmt) {
    const q = new URLSearchParams({ id: text });
    if (fmt) q.set("format", fmt);
    history.replaceState(null, "", "/?" + q.toString());
  }

  function showId(info, text) {
    shown = { info, text };
    const fmt = formats.find((f) => f.name === info.format);
    $("result").hidden = false;
    $("candidates").hidden = true;
    $("detail").hidden = false;
    $("result").dataset.id = text;
    $("result").dataset.format = info.format;
    $("summary").textContent = `A ${info.format} ID, minted ${info.time} (UTC).`;
    $("out-format").textContent = fmt ? `${info.format}: ${fmt.title}` : info.format;
    $("out-utc").textContent = info.time;
    $("out-zone").textContent = Intl.DateTimeFormat().resolvedOptions().timeZone || "this browser's zone";
    $("out-local").textContent = localTime(info.unix_ms);
    $("local-term").hidden = $("out-local").hidden = zoneIsUtc(info.unix_ms);
    $("out-ago").textContent = age(info.unix_ms);
    const body = $("fields").tBodies[0];
    body.replaceChildren();
    for (const [k, v] of Object.entries(info)) {
      const tr = el("tr", { "data-field": k });
      tr.append(el("th", { scope: "row" }, k), el("td", {}, String(v)));
      body.append(tr);
    }
    renderShown();
    updateMint();
    say(`Showing a ${info.format} ID.`);
  }

  function showCandidates(body, text) {
    shown = null;
    $("result").hidden = false;
    $("detail").hidden = true;
    $("candidates").hidden = false;
    $("result").dataset.id = text;
    $("result").dataset.format = "";
    $("summary").textContent = `'${text}' could be any of ${body.candidates.length} formats.`;
    const list = $("candidate-list");
    list.replaceChildren();
    for (const c of body.candidates) {
      const b = el("button", { type: "button", class: "link", "data-format": c.format },
        `${c.format}, minted ${c.time}`);
      b.addEventListener("click", () => {
        $("format").value = c.format;
        // The button goes with the list: the focus moves on to what it chose, not back to the top.
        run(async () => {
          await lookup(text, c.format);
          if (!$("detail").hidden) $("result-title").focus();
        });
      });
      const li = el("li");
      li.append(b);
      list.append(li);
    }
    updateMint();
    say(`This text is an ID of several formats: ${body.candidates.map((c) => c.format).join(", ")}. Choose one.`);
  }

  async function lookup(raw, fmt) {
    const text = raw.trim(), mine = ++serial;
    if (text === "") {
      say("Type or paste an ID first.", true);
      $("id").focus();
      return;
    }
    const path = fmt ? `/v1/${encodeURIComponent(fmt)}/${encodeURIComponent(text)}`
      : `/v1/inspect/${encodeURIComponent(text)}`;
    say("Looking it up…");
    const { code, body } = await api(path);
    if (mine !== serial) return;
    if (code === 200) {
      share(text, fmt);
      showId(body, text);
    } else if (code === 300 && Array.isArray(body.candidates)) {
      share(text, fmt);
      showCandidates(body, text);
    } else {
      shown = null;
      $("result").hidden = true;
      updateMint();
      say(body.error || `The server answered ${code}.`, true);
    }
  }

  async function mint() {
    const name = chosenFormat();
    if (!name) {
      say("Choose a format to mint.", true);
      return;
    }
    const { code, body } = await api(`/v1/${encodeURIComponent(name)}`);
    if (code !== 200 || !body.ids) {
      say(body.error || `The server answered ${code}.`, true);
      return;
    }
    $("id").value = body.ids[0];
    await lookup(body.ids[0], name);
  }

  function debounce(fn, ms) {
    let t = 0;
    return () => {
      clearTimeout(t);
      t = setTimeout(fn, ms);
    };
  }

  $("lookup").addEventListener("submit", (e) => {
    e.preventDefault();
    run(() => lookup($("id").value, $("format").value));
  });
  $("id").addEventListener("paste", () => setTimeout(() => run(() => lookup($("id").value, $("format").value)), 0));
  $("format").addEventListener("change", updateMint);
  $("mint").addEventListener("click", () => run(mint));
  $("forget").addEventListener("click", () => {
    sessionStorage.removeItem(SECRET_KEY);
    $("forget").hidden = true;
    say("The secret is forgotten.");
  });
  $("auth-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const s = $("secret").value;
    $("secret").value = "";
    try {
      sessionStorage.setItem(SECRET_KEY, s);
    } catch (err) {
      $("auth-error").textContent = "This browser keeps no session storage: the secret cannot be kept.";
      return;
    }
    $("auth").hidden = true;
    $("forget").hidden = false;
    say("");
    const again = pending;
    if (again) run(again);
  });
  window.addEventListener("resize", debounce(() => {
    if (formats.length) renderFormats();
    renderShown();
  }, 200));

  $("forget").hidden = secret() === null;
  run(async () => {
    await loadFormats();
    const q = new URLSearchParams(location.search);
    const id = q.get("id"), fmt = q.get("format");
    if (fmt && formats.some((f) => f.name === fmt)) $("format").value = fmt;
    updateMint();
    if (id) {
      $("id").value = id;
      await lookup(id, $("format").value);
    }
  });
})();
