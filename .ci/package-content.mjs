// Stages what an installed Crucible reads, laid out as a project checkout is, so the same paths
// work: tasks/, assets/ (universes, artifacts, fonts, the model catalogue; not the Solidity sources)
// and node_modules/ holding only the sandbox's vendored packages (ethers, viem) and what they
// depend on, resolved from package-lock.json. Anvil and Deno are not here: they ship as sidecars.
//   node .ci/package-content.mjs OUT_DIR
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";

const out = process.argv[2];
if (!out) {
  console.error("usage: node .ci/package-content.mjs OUT_DIR");
  process.exit(2);
}
const root = join(dirname(new URL(import.meta.url).pathname), "..");
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "assets"), { recursive: true });

cpSync(join(root, "tasks"), join(out, "tasks"), { recursive: true });
for (const part of ["universe", "artifacts", "fonts", "models.json"]) {
  cpSync(join(root, "assets", part), join(out, "assets", part), { recursive: true });
}

// The closure of the vendored runtime packages, by Node's resolution over the lock file's
// package paths: a dependency of `node_modules/a/node_modules/b` is looked up under b, then a,
// then the top.
const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")).packages;
const wanted = ["ethers", "viem"];
const take = new Set();
const resolve = (from, name) => {
  let base = from;
  for (;;) {
    const candidate = `${base ? base + "/" : ""}node_modules/${name}`;
    if (lock[candidate]) return candidate;
    if (!base) return null;
    const i = base.lastIndexOf("/node_modules/");
    base = i < 0 ? "" : base.slice(0, i);
  }
};
const visit = (path) => {
  if (take.has(path)) return;
  take.add(path);
  const p = lock[path];
  for (const name of Object.keys({ ...p.dependencies, ...p.peerDependencies })) {
    const dep = resolve(path, name);
    if (dep) visit(dep);
    else if (!(p.peerDependenciesMeta?.[name]?.optional)) {
      console.error(`package-content: ${path} needs ${name}, which package-lock.json does not hold`);
      process.exit(1);
    }
  }
};
for (const w of wanted) {
  if (!lock[`node_modules/${w}`]) {
    console.error(`package-content: ${w} is not in package-lock.json`);
    process.exit(1);
  }
  visit(`node_modules/${w}`);
}
for (const path of [...take].sort()) {
  const src = join(root, path);
  if (!existsSync(src)) {
    console.error(`package-content: ${path} is not installed; run npm ci first`);
    process.exit(1);
  }
  // Nested node_modules of a taken package are copied with it only when taken themselves.
  cpSync(src, join(out, path), {
    recursive: true,
    filter: (s) => !s.slice(src.length).includes("/node_modules/"),
  });
}
console.log(`staged ${take.size} npm packages (${[...take].map((p) => p.replace(/^.*node_modules\//, "")).join(", ")})`);
