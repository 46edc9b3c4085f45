// Unit tests of the trace viewer's syntax highlighter (ui/src/highlight.ts): token classes for
// TypeScript and JSON, lossless tokenization, markup in model output rendered as text (never
// parsed), and a 10 MB answer highlighted only up to the limit, fast.
// The TypeScript source is transpiled with Vite's own transformer; no browser is needed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { transformWithOxc } from "vite";
import { uiDir } from "./harness.mjs";

const src = readFileSync(join(uiDir, "src", "highlight.ts"), "utf8");
const { code } = await transformWithOxc(src, "highlight.ts", { lang: "ts" });
const file = join(mkdtempSync(join(tmpdir(), "hl-")), "highlight.mjs");
writeFileSync(file, code);
const hl = await import(pathToFileURL(file).href);

/** A minimal DOM: just what highlightInto uses, recording what was created. */
function fakeDocument() {
  const created = [];
  const node = (tag) => {
    const n = {
      tag,
      children: [],
      className: "",
      dataset: {},
      classList: { items: new Set(), add(...c) { c.forEach((x) => this.items.add(x)); } },
      set textContent(t) { this.children = [{ tag: "#text", data: t }]; },
      get textContent() { return this.children.map((c) => (c.tag === "#text" ? c.data : c.textContent)).join(""); },
      append(...c) { this.children.push(...c.flatMap((x) => (x.tag === "#fragment" ? x.children : [x]))); },
      replaceChildren(...c) { this.children = []; this.append(...c); },
    };
    created.push(n);
    return n;
  };
  return {
    created,
    createElement: (tag) => node(tag),
    createDocumentFragment: () => node("#fragment"),
    createTextNode: (data) => ({ tag: "#text", data }),
  };
}

const kinds = (src, lang) => hl.tokenize(src, lang).filter((t) => t.kind !== "ws").map((t) => [t.kind, t.text]);

test("typescript tokens: keywords, strings, numbers, comments, punctuation", () => {
  const cases = [
    ["const x = 1;", [["kw", "const"], ["ident", "x"], ["punc", "="], ["num", "1"], ["punc", ";"]]],
    ["return 'a\\'b' // done", [["kw", "return"], ["str", "'a\\'b'"], ["com", "// done"]]],
    ["/* c */ `t${x}` 0x1F 1_000n 2.5e-3", [["com", "/* c */"], ["str", "`t${x}`"], ["num", "0x1F"], ["num", "1_000n"], ["num", "2.5e-3"]]],
    ["await f(true, null)", [["kw", "await"], ["ident", "f"], ["punc", "("], ["lit", "true"], ["punc", ","], ["lit", "null"], ["punc", ")"]]],
    ['"unterminated\nnext', [["str", '"unterminated'], ["ident", "next"]]],
    ["é", [["text", "é"]]],
  ];
  for (const [src, want] of cases) assert.deepEqual(kinds(src, "typescript"), want, src);
});

test("json tokens: keys, strings, numbers, literals, punctuation", () => {
  assert.deepEqual(kinds('{"to": "0xAb", "value": -1.5e3, "ok": true, "n": null}', "json"), [
    ["punc", "{"], ["key", '"to"'], ["punc", ":"], ["str", '"0xAb"'], ["punc", ","],
    ["key", '"value"'], ["punc", ":"], ["num", "-1.5e3"], ["punc", ","],
    ["key", '"ok"'], ["punc", ":"], ["lit", "true"], ["punc", ","],
    ["key", '"n"'], ["punc", ":"], ["lit", "null"], ["punc", "}"],
  ]);
  // No comments in JSON: `//` is punctuation there.
  assert.deepEqual(kinds("// x", "json").map((t) => t[0]), ["punc", "punc", "text"]);
});

test("tokenizing loses nothing, whatever the input", () => {
  const inputs = ["", "   ", "a<b>c</b>", "\\", "'", "`", "/*", "0x", "1e", ".5", "{\"a\":[1,2,{\"b\":\"c\\\"\"}]}", "x".repeat(1000)];
  for (const lang of ["typescript", "json"]) {
    for (const s of inputs) assert.equal(hl.tokenize(s, lang).map((t) => t.text).join(""), s, `${lang}: ${s}`);
  }
});

test("markup in model output becomes text, never elements", () => {
  const doc = fakeDocument();
  globalThis.document = doc;
  const el = doc.createElement("pre");
  const evil = 'const s = "<img src=x onerror=alert(1)>"; // <script>alert(2)</script>';
  hl.highlightInto(el, evil, "typescript");
  assert.equal(el.textContent, evil);
  const tags = new Set(doc.created.map((n) => n.tag));
  assert.deepEqual([...tags].sort(), ["#fragment", "pre", "span"]);
  assert.ok(el.children.some((c) => c.className === "tok-str" && c.textContent.includes("<img")));
  assert.equal(el.dataset.highlighted, "typescript");
});

test("a 10 MB answer: only the first HIGHLIGHT_CHARS are tokenized, the rest is one text node", () => {
  const doc = fakeDocument();
  globalThis.document = doc;
  const line = 'const amount = parseUnits("1.5", 18); // send\n';
  const big = line.repeat(Math.ceil((10 * 1024 * 1024) / line.length));
  const el = doc.createElement("pre");
  const t0 = performance.now();
  hl.highlightInto(el, big, "typescript");
  const ms = performance.now() - t0;
  assert.equal(el.textContent.length, big.length);
  const last = el.children[el.children.length - 1];
  assert.equal(last.tag, "#text");
  assert.equal(last.data.length, big.length - hl.HIGHLIGHT_CHARS);
  const spans = el.children.filter((c) => c.tag === "span").length;
  assert.ok(spans > 1000 && spans < hl.HIGHLIGHT_CHARS, `${spans} spans`);
  // Reported, not asserted (timing depends on the machine).
  console.log(`highlight of ${big.length} chars: ${ms.toFixed(1)} ms, ${spans} spans`);
});
