// A tiny element builder. Text always goes through text nodes, never innerHTML, because paths and
// error messages come from the file system and may contain anything.
type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | boolean | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child);
  }
  return el;
}

/** Replaces all children of `root`. */
export function mount(root: HTMLElement, ...children: Child[]): void {
  root.replaceChildren();
  for (const child of children) {
    if (child) root.append(child);
  }
}

/**
 * An identifier (a task, instance or run id) shown as data, not as words: it may break after
 * `_ # / - : .` but never inside a word. The checks for raw keys on screen skip `.ident`.
 */
export function ident(text: string): HTMLElement {
  const el = h("span", { class: "ident" });
  for (const part of text.split(/(?<=[_#/:.-])/)) el.append(part, document.createElement("wbr"));
  return el;
}
