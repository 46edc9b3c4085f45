// A report chart (an SVG drawn by the core with plotters) inlined on the Results page: only the
// allowed drawing elements are kept (no scripts, handlers or links), the core's internal keys in
// its text read as words ("CompositeAvg" → "Composite average", Intent2Tx's F/L/P/A → "Format",
// "Logic", "Parameters", "Pass", `missing_step` → "Missing step"), an axis whose ticks all read
// the same ("0 0 0 0": every model's cost was 0) loses its meaningless ticks and says why, and
// every point is listed by name under the chart (a plot labels only some). It must not change a
// number: values are the core's.
import { h } from "./dom";
import { valueLabel } from "./labels";

const SVG_NS = "http://www.w3.org/2000/svg";
/** Elements a plotters SVG uses; anything else (script, foreignObject, …) is dropped. */
const SVG_ALLOWED = new Set(["svg", "g", "rect", "circle", "ellipse", "line", "polyline", "polygon", "path", "text", "tspan", "title", "defs", "clipPath"]);

/** Internal keys the core writes into charts, in words. */
const CHART_WORDS: Readonly<Record<string, string>> = {
  CompositeAvg: "Composite average",
  AtomicAvg: "Atomic average",
  StateEq: "State equal",
  Exec: "Executes",
};

/** Intent2Tx's one-letter field metrics (a chart's category axis), in words. */
const METRIC_LETTERS: Readonly<Record<string, string>> = { F: "Format", L: "Logic", P: "Parameters", A: "Pass" };

const SNAKE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;

/** A chart text for people: internal keys replaced inside it; a whole snake_case word in words. */
export function chartText(text: string, letters = false): string {
  const t = text.trim();
  if (letters && METRIC_LETTERS[t]) return METRIC_LETTERS[t];
  if (SNAKE.test(t)) return valueLabel(t);
  return text.replace(/\b(CompositeAvg|AtomicAvg|StateEq)\b/g, (k) => CHART_WORDS[k] ?? k);
}

/** A hover text: each line's " · "-separated parts relabelled when a part is a key. */
function hoverText(text: string): string {
  return text.split("\n").map((line) => line.split(" · ").map((p) => (SNAKE.test(p.trim()) ? valueLabel(p.trim()) : chartText(p))).join(" · ")).join("\n");
}

/** Copies `src` (a parsed SVG element) into this document, keeping only allowed elements and
 *  presentation attributes (no event handlers, no links); texts read as words. */
function cleanSvg(src: Element, letters: boolean): Element | null {
  if (!SVG_ALLOWED.has(src.localName)) return null;
  const el = document.createElementNS(SVG_NS, src.localName);
  for (const a of src.attributes) {
    const n = a.name.toLowerCase();
    if (n.startsWith("on") || n.includes("href") || a.value.toLowerCase().includes("javascript:")) continue;
    el.setAttribute(a.name, n === "data-hover" ? hoverText(a.value) : a.value);
  }
  for (const ch of src.childNodes) {
    if (ch.nodeType === Node.TEXT_NODE) {
      const t = ch.textContent ?? "";
      const words = src.localName === "title" ? hoverText(t) : src.localName === "text" || src.localName === "tspan" ? chartText(t, letters) : t;
      el.append(document.createTextNode(words));
    } else if (ch.nodeType === Node.ELEMENT_NODE) {
      const c = cleanSvg(ch as Element, letters);
      if (c) el.append(c);
    }
  }
  return el;
}

const NUMBER = /^[−-]?\d+(?:[.,]\d+)*$/;

/** Tick labels of an axis whose every tick reads the same number (a degenerate axis, e.g. every
 *  cost 0): removed, and the value returned for a note; null when every axis has a scale. */
function dropFlatTicks(svg: Element): string | null {
  const ticks = [...svg.querySelectorAll("text")].filter((t) => NUMBER.test((t.textContent ?? "").trim()));
  const groups = new Map<string, Element[]>();
  for (const t of ticks) {
    // Ticks of a vertical axis share their x and anchor; those of a horizontal axis their y.
    for (const key of [`x${t.getAttribute("x")}${t.getAttribute("text-anchor")}`, `y${t.getAttribute("y")}`]) {
      groups.set(key, [...(groups.get(key) ?? []), t]);
    }
  }
  for (const g of groups.values()) {
    if (g.length < 3) continue;
    const values = new Set(g.map((t) => Number((t.textContent ?? "").trim().replace("−", "-").replace(/,/g, ""))));
    if (values.size === 1) {
      for (const t of g) t.remove();
      return (g[0].textContent ?? "").trim();
    }
  }
  return null;
}

/** A chart's SVG inlined (so its hover regions work), with a tooltip that follows the pointer
 *  over any `data-hover` region; falls back to an image when the SVG does not parse. */
export function chartBox(name: string, svg: string): HTMLElement {
  const box = h("div", { class: "chart-box", "data-chart-box": name });
  const doc = new DOMParser().parseFromString(svg, "image/svg+xml");
  const root = doc.documentElement;
  const clean = root && root.localName === "svg" && !doc.querySelector("parsererror") ? cleanSvg(root, name.startsWith("intent2tx")) : null;
  if (!clean) {
    const img = h("img", { alt: name, class: "chart-img" });
    img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
    box.append(img);
    return box;
  }
  clean.setAttribute("role", "img");
  clean.setAttribute("aria-label", name);
  const flat = dropFlatTicks(clean);
  const tip = h("div", { class: "chart-tip", hidden: true });
  box.append(clean, tip);
  if (flat !== null) {
    box.append(h("p", { class: "muted small chart-note", "data-field": "flat-axis" },
      `Every point has the same value (${flat}) on one axis, so its ticks are left out: there is nothing to tell apart there (a cost of 0 means no priced calls, e.g. offline agents).`));
  }
  const points = [...clean.querySelectorAll("[data-hover]")].map((e) => e.getAttribute("data-hover") ?? "").filter((t) => t !== "");
  if (points.length > 0) {
    box.append(h("details", { class: "chart-points", "data-field": "points" },
      h("summary", {}, `The ${points.length} point${points.length === 1 ? "" : "s"} by name`),
      h("ul", {}, ...points.map((p) => h("li", {}, p.replace(/\n/g, " · "))))));
  }
  box.addEventListener("mouseover", (ev) => {
    const t = (ev.target as Element | null)?.closest?.("[data-hover]");
    if (!t) return;
    tip.textContent = t.getAttribute("data-hover") ?? "";
    const br = box.getBoundingClientRect();
    const tr = t.getBoundingClientRect();
    tip.style.left = `${Math.round(tr.right - br.left + 6)}px`;
    tip.style.top = `${Math.round(tr.top - br.top)}px`;
    tip.hidden = false;
  });
  // Hide when the pointer leaves a region (not on every other mouseover: scrolling under a
  // resting pointer fires those too).
  box.addEventListener("mouseout", (ev) => {
    const from = (ev.target as Element | null)?.closest?.("[data-hover]");
    const to = (ev.relatedTarget as Element | null)?.closest?.("[data-hover]");
    if (from && from !== to) tip.hidden = true;
  });
  return box;
}
