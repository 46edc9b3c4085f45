// Tasks studio: the seed picker (step ±1) shared by the Render and Dry-run tabs. The seed lives in
// the page state so both tabs, and a return to the page, keep the same one.
import { h } from "../../dom";
import type { State } from "./common";

export function seedPicker(state: State, onChange: () => void, id = "seed"): HTMLElement {
  const input = h("input", { type: "number", id, min: "0", value: String(state.seed), "aria-label": "Seed", class: "seed" });
  const set = (v: number) => { state.seed = Math.max(0, Math.floor(v) || 0); input.value = String(state.seed); onChange(); };
  const prev = h("button", { type: "button", class: "btn", id: `${id}-prev`, "aria-label": "Previous seed" }, "−1");
  const next = h("button", { type: "button", class: "btn", id: `${id}-next`, "aria-label": "Next seed" }, "+1");
  prev.addEventListener("click", () => set(state.seed - 1));
  next.addEventListener("click", () => set(state.seed + 1));
  input.addEventListener("change", () => set(Number(input.value)));
  return h("div", { class: "row" }, h("label", { for: id }, "Seed"), prev, input, next);
}
