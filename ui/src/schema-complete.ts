// Schema-driven completion for the task editor: from the JSON Schema of the task format (generated
// by the core from its Rust types) and the text before the caret, the keys an object at the caret
// may hold, or the allowed values (enum/const, e.g. check families, sampling methods) of the key
// being filled in. Pure functions; the editor decides when to show them.

type Schema = Record<string, any>;

/** One completion: what to show and what replaces the text from `from` to the caret. */
export interface Suggestion {
  label: string;
  insert: string;
  doc: string;
}

interface Frame {
  kind: "obj" | "arr";
  /** The key this container is the value of ("[]" for array elements, "" at the root). */
  via: string;
  /** The last key read inside this object. */
  key: string;
  /** Keys already present in this object. */
  keys: string[];
}

/** Where the caret is: the container path, and whether a key or a value string is being typed. */
interface Context {
  path: string[];
  mode: "key" | "value" | "none";
  prefix: string;
  present: string[];
  key: string;
}

function context(text: string, caret: number): Context {
  const frames: Frame[] = [];
  let last = "";
  let inString = false;
  let stringStart = -1;
  let afterColon = false;
  let expectKey = false;
  for (let i = 0; i < caret; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') { inString = false; last = text.slice(stringStart + 1, i); }
      continue;
    }
    const top = frames[frames.length - 1];
    if (c === '"') { inString = true; stringStart = i; continue; }
    if (c === "{" || c === "[") {
      const via = top ? (top.kind === "arr" ? "[]" : top.key) : "";
      frames.push({ kind: c === "{" ? "obj" : "arr", via, key: "", keys: [] });
      expectKey = c === "{";
      afterColon = false;
    } else if (c === "}" || c === "]") {
      frames.pop();
      expectKey = false;
      afterColon = false;
    } else if (c === ":" && top?.kind === "obj") {
      top.key = last;
      top.keys.push(last);
      afterColon = true;
      expectKey = false;
    } else if (c === ",") {
      expectKey = top?.kind === "obj";
      afterColon = false;
    }
  }
  const top = frames[frames.length - 1];
  const path = frames.slice(1).map((f) => f.via);
  if (!top || top.kind !== "obj") return { path, mode: "none", prefix: "", present: [], key: "" };
  const prefix = inString ? text.slice(stringStart + 1, caret) : "";
  const between = inString ? "" : text.slice(Math.max(0, caret - 40), caret);
  if (expectKey && (inString || /[{,]\s*$/.test(between) || between.trim() === "")) {
    return { path, mode: "key", prefix, present: top.keys, key: "" };
  }
  if (afterColon && inString) return { path, mode: "value", prefix, present: top.keys, key: top.key };
  return { path, mode: "none", prefix: "", present: top.keys, key: top.key };
}

function resolve(root: Schema, node: Schema | undefined): Schema[] {
  if (!node || typeof node !== "object") return [];
  if (typeof node.$ref === "string") {
    const name = node.$ref.replace(/^#\/\$defs\//, "");
    return resolve(root, root.$defs?.[name]);
  }
  const alts = [...(node.oneOf ?? []), ...(node.anyOf ?? []), ...(node.allOf ?? [])];
  if (alts.length) return [node, ...alts.flatMap((a: Schema) => resolve(root, a))];
  return [node];
}

/** The schemas that may describe the container at `path`. */
function at(root: Schema, path: string[]): Schema[] {
  let nodes = resolve(root, root);
  for (const step of path) {
    // A key the schema does not list is a map entry (`params.<name>`): its additionalProperties.
    nodes = nodes.flatMap((n) => resolve(root, step === "[]" ? n.items
      : n.properties?.[step] ?? (typeof n.additionalProperties === "object" ? n.additionalProperties : undefined)));
  }
  return nodes;
}

/** Completions at `caret` in `text`, or null when there is nothing to offer there. */
export function suggest(schema: Schema, text: string, caret: number): { from: number; items: Suggestion[] } | null {
  const ctx = context(text, caret);
  if (ctx.mode === "none") return null;
  const nodes = at(schema, ctx.path);
  const from = caret - ctx.prefix.length - (ctx.prefix.length || text[caret - 1] === '"' ? 1 : 0);
  const seen = new Set<string>();
  const items: Suggestion[] = [];
  if (ctx.mode === "key") {
    for (const n of nodes) {
      for (const [k, v] of Object.entries<Schema>(n.properties ?? {})) {
        if (seen.has(k) || ctx.present.includes(k) || !k.startsWith(ctx.prefix)) continue;
        seen.add(k);
        items.push({ label: k, insert: `"${k}": `, doc: String(v.description ?? "").split("\n")[0] });
      }
    }
  } else {
    for (const n of nodes) {
      for (const v of resolve(schema, n.properties?.[ctx.key])) {
        const values: unknown[] = v.const !== undefined ? [v.const] : Array.isArray(v.enum) ? v.enum : [];
        for (const x of values) {
          if (typeof x !== "string" || seen.has(x) || !x.startsWith(ctx.prefix)) continue;
          seen.add(x);
          items.push({ label: x, insert: `"${x}"`, doc: String(v.description ?? n.description ?? "").split("\n")[0] });
        }
      }
    }
  }
  return items.length ? { from: Math.max(0, from), items } : null;
}
