// Pages whose features are not built yet: they say what will be here and how to get there today.
import { h, mount } from "../dom";

export function renderEmpty(root: HTMLElement, title: string, what: string, meanwhile: string): void {
  mount(
    root,
    h("header", { class: "page-head" }, h("h1", {}, title)),
    h("section", { class: "card empty" }, h("p", {}, what), h("p", { class: "muted" }, meanwhile)),
  );
}
