// Syntax highlighting of extracted code (TypeScript/JavaScript) and JSON in the trace viewer.
// A small hand-written tokenizer: one linear pass over the text, no regular expressions on the
// whole input, so a big answer stays fast; only the first HIGHLIGHT_CHARS characters are
// highlighted and the rest is appended as plain text. Rendering builds text nodes inside spans
// (never innerHTML), so model output can never inject markup.

export type Lang = "typescript" | "json";
/** Token classes; each becomes a `tok-<kind>` span (plain text for "text" and "ws"). */
export type TokKind = "kw" | "str" | "num" | "com" | "punc" | "lit" | "key" | "ident" | "ws" | "text";
export interface Token {
  kind: TokKind;
  text: string;
}

/** Characters highlighted at most; the rest of a longer text is shown plain. */
export const HIGHLIGHT_CHARS = 200_000;

const TS_KEYWORDS = new Set(
  ("abstract as async await break case catch class const continue debugger declare default delete do else enum export " +
    "extends finally for from function get if implements import in instanceof interface let new of package private " +
    "protected public readonly return set static super switch this throw try type typeof var void while with yield")
    .split(" "),
);
const TS_LITERALS = new Set(["true", "false", "null", "undefined", "NaN", "Infinity"]);
const PUNCT = "{}()[];,.<>=+-*/%!&|^~?:@#";

const isDigit = (c: number) => c >= 48 && c <= 57;
const isIdStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
const isId = (c: number) => isIdStart(c) || isDigit(c);
const isWs = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;

/** Index after a quoted string starting at `i` (quote `q`); an unterminated string runs to the end
 *  (or, for ' and ", to the end of the line). */
function skipString(s: string, i: number, q: number): number {
  let j = i + 1;
  while (j < s.length) {
    const c = s.charCodeAt(j);
    if (c === 92) j += 2;
    else if (c === q) return j + 1;
    else if (c === 10 && q !== 96) return j;
    else j++;
  }
  return s.length;
}

/** Index after a number starting at `i` (decimal, hex/octal/binary, exponent, bigint suffix). */
function skipNumber(s: string, i: number): number {
  let j = i;
  if (s.charCodeAt(j) === 45) j++; // JSON minus
  if (s.charCodeAt(j) === 48 && /[xXoObB]/.test(s[j + 1] ?? "")) {
    j += 2;
    while (j < s.length && /[0-9a-fA-F_]/.test(s[j])) j++;
  } else {
    while (j < s.length && (isDigit(s.charCodeAt(j)) || s[j] === "_")) j++;
    if (s[j] === "." && isDigit(s.charCodeAt(j + 1))) {
      j++;
      while (j < s.length && (isDigit(s.charCodeAt(j)) || s[j] === "_")) j++;
    }
    if ((s[j] === "e" || s[j] === "E") && (isDigit(s.charCodeAt(j + 1)) || ((s[j + 1] === "+" || s[j + 1] === "-") && isDigit(s.charCodeAt(j + 2))))) {
      j += 2;
      while (j < s.length && isDigit(s.charCodeAt(j))) j++;
    }
  }
  if (s[j] === "n") j++;
  return j;
}

/** Splits `src` into tokens; concatenating their texts gives `src` back exactly. */
export function tokenize(src: string, lang: Lang): Token[] {
  const out: Token[] = [];
  const push = (kind: TokKind, text: string) => {
    const last = out[out.length - 1];
    if (last && last.kind === kind && (kind === "text" || kind === "ws")) last.text += text;
    else out.push({ kind, text });
  };
  const n = src.length;
  let i = 0;
  while (i < n) {
    const c = src.charCodeAt(i);
    if (isWs(c)) {
      let j = i + 1;
      while (j < n && isWs(src.charCodeAt(j))) j++;
      push("ws", src.slice(i, j));
      i = j;
      continue;
    }
    if (lang === "typescript" && c === 47 && src.charCodeAt(i + 1) === 47) {
      let j = src.indexOf("\n", i);
      if (j < 0) j = n;
      push("com", src.slice(i, j));
      i = j;
      continue;
    }
    if (lang === "typescript" && c === 47 && src.charCodeAt(i + 1) === 42) {
      let j = src.indexOf("*/", i + 2);
      j = j < 0 ? n : j + 2;
      push("com", src.slice(i, j));
      i = j;
      continue;
    }
    if (c === 34 || (lang === "typescript" && (c === 39 || c === 96))) {
      const j = skipString(src, i, c);
      let kind: TokKind = "str";
      if (lang === "json") {
        // A string followed by ':' is an object key.
        let k = j;
        while (k < n && isWs(src.charCodeAt(k))) k++;
        if (src[k] === ":") kind = "key";
      }
      push(kind, src.slice(i, j));
      i = j;
      continue;
    }
    if (isDigit(c) || (c === 45 && lang === "json" && isDigit(src.charCodeAt(i + 1))) || (c === 46 && isDigit(src.charCodeAt(i + 1)) && lang === "typescript")) {
      const j = c === 46 ? skipNumber(src, i + 1) : skipNumber(src, i);
      push("num", src.slice(i, Math.max(j, i + 1)));
      i = Math.max(j, i + 1);
      continue;
    }
    if (isIdStart(c)) {
      let j = i + 1;
      while (j < n && isId(src.charCodeAt(j))) j++;
      const word = src.slice(i, j);
      let kind: TokKind = "text";
      if (lang === "typescript") kind = TS_KEYWORDS.has(word) ? "kw" : TS_LITERALS.has(word) ? "lit" : "ident";
      else kind = word === "true" || word === "false" || word === "null" ? "lit" : "text";
      push(kind, word);
      i = j;
      continue;
    }
    if (PUNCT.includes(src[i])) {
      push("punc", src[i]);
      i++;
      continue;
    }
    push("text", src[i]);
    i++;
  }
  return out;
}

/** Fills `el` with the highlighted `src` (the first HIGHLIGHT_CHARS characters; the rest plain).
 *  Only text nodes and spans are created. */
export function highlightInto(el: HTMLElement, src: string, lang: Lang, limit = HIGHLIGHT_CHARS): void {
  const head = src.length > limit ? src.slice(0, limit) : src;
  const frag = document.createDocumentFragment();
  for (const t of tokenize(head, lang)) {
    if (t.kind === "text" || t.kind === "ws" || t.kind === "ident") frag.append(document.createTextNode(t.text));
    else {
      const span = document.createElement("span");
      span.className = `tok-${t.kind}`;
      span.textContent = t.text;
      frag.append(span);
    }
  }
  if (head.length < src.length) frag.append(document.createTextNode(src.slice(head.length)));
  el.replaceChildren(frag);
  el.classList.add("code", `lang-${lang}`);
  el.dataset.highlighted = lang;
}
