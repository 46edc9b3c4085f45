// Unit tests of token amounts for people (ui/src/units.ts): wei read in the token's units, with
// thousands separators, small amounts never shown as 0, rounding marked.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { transformWithOxc } from "vite";
import { uiDir } from "./harness.mjs";

const src = readFileSync(join(uiDir, "src", "units.ts"), "utf8");
const { code } = await transformWithOxc(src, "units.ts", { lang: "ts" });
const file = join(mkdtempSync(join(tmpdir(), "units-")), "units.mjs");
writeFileSync(file, code);
const units = await import(pathToFileURL(file).href);
const { tokenAmount, fmtCost, isCost, fmtMs } = units;

test("integers in the smallest unit read in token units", () => {
  assert.equal(tokenAmount("1059000000000000000000", 18), "1,059");
  assert.equal(tokenAmount("1500000", 6), "1.5");
  assert.equal(tokenAmount("0", 18), "0");
  assert.equal(tokenAmount("-2500000000000000000", 18), "−2.5");
  assert.equal(tokenAmount("1234567890123", 0), "1,234,567,890,123");
});

test("rounding is marked and a small amount keeps its significant digits", () => {
  assert.equal(tokenAmount("1055821885238969613", 18), "≈ 1.055821");
  assert.equal(tokenAmount("1", 18), "0.000000000000000001");
  assert.equal(tokenAmount("123456789", 18), "≈ 0.000000000123456");
  assert.equal(tokenAmount("000120", 2), "1.2", "leading zeros are not digits");
});

const labelsSrc = readFileSync(join(uiDir, "src", "labels.ts"), "utf8");
const labelsJs = (await transformWithOxc(labelsSrc, "labels.ts", { lang: "ts" })).code;
const labelsFile = join(mkdtempSync(join(tmpdir(), "labels-")), "labels.mjs");
writeFileSync(labelsFile, labelsJs);
const { modelList } = await import(pathToFileURL(labelsFile).href);

test("a run's models list people's models first and fold the built-in agents under one phrase", () => {
  assert.equal(modelList(["reference (offline test agent)", "lab · llama", "known-wrong (offline test agent)"]),
    "lab · llama; offline test agents: reference, known-wrong");
  assert.equal(modelList(["reference (offline test agent)"]), "reference (offline test agent)");
  assert.equal(modelList(["lab · a", "lab · b"]), "lab · a; lab · b");
  assert.equal(modelList([]), "");
});

test("an unpriced cost is never shown as $0", () => {
  assert.equal(fmtCost({ known_usd: 0, unpriced_calls: 3 }), "unpriced");
  assert.equal(fmtCost({ known_usd: 1.5, unpriced_calls: 1 }), "≥ $1.50 + unpriced");
  assert.equal(fmtCost({ known_usd: 0.0123, unpriced_calls: 0 }), "$0.0123");
  assert.equal(fmtCost({ known_usd: 0, unpriced_calls: 0 }), "$0", "a priced run that billed nothing");
  assert.equal(fmtCost(null), "unknown");
  assert.ok(isCost({ known_usd: 0, unpriced_calls: 0 }) && !isCost({ known_usd: 1 }) && !isCost(null));
});

test("one cost formatter: a known amount as a number reads like the same amount as a cost, and there is no second formatter", () => {
  assert.equal(fmtCost(0.0042), fmtCost({ known_usd: 0.0042, unpriced_calls: 0 }));
  assert.equal(fmtCost(0.0042), "$0.0042");
  assert.equal(fmtCost(12.5), "$12.50");
  assert.equal(fmtCost(Number.NaN), "unknown");
  assert.equal("formatCost" in units, false, "formatCost is folded into fmtCost");
});

test("durations read in human units", () => {
  assert.equal(fmtMs(840), "840 ms");
  assert.equal(fmtMs(18342), "18.3 s");
  assert.equal(fmtMs(125000), "2 min 5 s");
  assert.equal(fmtMs(Number.NaN), "–");
});
