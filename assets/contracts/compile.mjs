#!/usr/bin/env node
// Compiles Crucible's own Solidity (assets/contracts/src/*.sol) with solc-js and copies the npm package artifacts
// (Uniswap V2 factory/pair/router, WETH9) into one uniform artifact format under assets/artifacts/.
//
//   node assets/contracts/compile.mjs           write assets/artifacts/<Name>.json and assets/contracts/layouts.json
//   node assets/contracts/compile.mjs --check   compile in memory, compare with the committed files, exit 1 on drift
//
// Output is deterministic: fixed compiler settings, no metadata hash in the bytecode, stable key order, no timestamps.
import { readFileSync, readdirSync, writeFileSync, existsSync, mkdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..");
const srcDir = join(here, "src");
const artifactDir = join(root, "assets", "artifacts");
const layoutFile = join(here, "layouts.json");
const nodeModules = join(root, "node_modules");

const OPTIMIZER_RUNS = 200;
const EVM_VERSION = "cancun";

/** Contracts in src/ that are libraries/abstract helpers and get no artifact of their own. */
const SKIP = new Set(["OwnerSlot0", "OwnedToken", "SimpleStakingBase"]);

function fail(msg) {
  console.error(`compile-contracts: ${msg}`);
  process.exit(1);
}

function loadSolc() {
  let solc;
  try {
    solc = require(join(nodeModules, "solc"));
  } catch (e) {
    fail(`cannot load solc from node_modules (run \`npm install\` at the repo root first): ${e.message}`);
  }
  return solc;
}

/** Resolves `@openzeppelin/...` (and any other npm path) imports from the repo's node_modules. */
function findImports(path) {
  const candidates = [join(nodeModules, path), join(srcDir, path)];
  for (const c of candidates) {
    if (existsSync(c)) return { contents: readFileSync(c, "utf8") };
  }
  return { error: `import not found: ${path}` };
}

function hex(s) {
  if (typeof s !== "string") throw new Error("bytecode is not a string");
  const h = s.startsWith("0x") ? s.slice(2) : s;
  if (!/^[0-9a-fA-F]*$/.test(h)) throw new Error("bytecode is not plain hex (unlinked library?)");
  return "0x" + h.toLowerCase();
}

function artifact(contractName, abi, bytecode, deployedBytecode, source, version, runs, evm) {
  // Key order is fixed here; JSON.stringify keeps insertion order.
  return {
    contractName,
    abi,
    bytecode: hex(bytecode),
    deployedBytecode: hex(deployedBytecode),
    source,
    compiler: { version, optimizer_runs: runs, evm_version: evm },
  };
}

function compileOwn(solc) {
  const files = readdirSync(srcDir).filter((f) => f.endsWith(".sol")).sort();
  if (files.length === 0) fail(`no .sol files in ${relative(root, srcDir)}`);
  const sources = {};
  for (const f of files) {
    sources[`assets/contracts/src/${f}`] = { content: readFileSync(join(srcDir, f), "utf8") };
  }
  const input = {
    language: "Solidity",
    sources,
    settings: {
      optimizer: { enabled: true, runs: OPTIMIZER_RUNS },
      evmVersion: EVM_VERSION,
      metadata: { bytecodeHash: "none", appendCBOR: true },
      outputSelection: {
        "*": {
          "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object", "evm.deployedBytecode.immutableReferences", "storageLayout"],
        },
      },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
  const errors = (out.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length) fail("solc errors:\n" + errors.map((e) => e.formattedMessage).join("\n"));
  for (const w of out.errors ?? []) {
    if (w.severity === "warning" && w.sourceLocation?.file?.startsWith("assets/")) console.error(w.formattedMessage);
  }
  const version = solc.version().replace(/\.Emscripten\.clang$/, ""); // same spelling as native solc
  const artifacts = {};
  const layouts = {};
  for (const file of Object.keys(out.contracts ?? {}).sort()) {
    if (!file.startsWith("assets/contracts/src/")) continue;
    for (const name of Object.keys(out.contracts[file]).sort()) {
      const c = out.contracts[file][name];
      if (SKIP.has(name) || !c.evm.bytecode.object) continue; // abstract contracts and interfaces
      if (artifacts[name]) fail(`two contracts named ${name}`);
      artifacts[name] = artifact(name, c.abi, c.evm.bytecode.object, c.evm.deployedBytecode.object, file, version, OPTIMIZER_RUNS, EVM_VERSION);
      const types = c.storageLayout.types ?? {};
      layouts[name] = {
        storage: c.storageLayout.storage.map((s) => ({
          slot: Number(s.slot),
          offset: s.offset,
          label: s.label,
          type: types[s.type]?.label ?? s.type,
        })),
        immutables: Object.keys(c.evm.deployedBytecode.immutableReferences ?? {}).length > 0,
      };
    }
  }
  return { artifacts, layouts };
}

function packageArtifacts() {
  const read = (p) => JSON.parse(readFileSync(join(nodeModules, p), "utf8"));
  const res = {};
  // Uniswap V2 core: waffle format; compiler facts are in the embedded metadata.
  for (const name of ["UniswapV2Factory", "UniswapV2Pair"]) {
    const j = read(`@uniswap/v2-core/build/${name}.json`);
    const meta = JSON.parse(j.metadata);
    res[name] = artifact(
      name, j.abi, j.evm.bytecode.object, j.evm.deployedBytecode.object,
      `@uniswap/v2-core/contracts/${name}.sol`,
      meta.compiler.version, meta.settings.optimizer.enabled ? meta.settings.optimizer.runs : null, meta.settings.evmVersion,
    );
  }
  // Uniswap V2 periphery ships no metadata; its .waffle.json used solc 0.6.6, optimizer 999999 runs, istanbul.
  {
    const j = read("@uniswap/v2-periphery/build/UniswapV2Router02.json");
    res.UniswapV2Router02 = artifact(
      "UniswapV2Router02", j.abi, j.evm.bytecode.object, j.evm.deployedBytecode.object,
      "@uniswap/v2-periphery/contracts/UniswapV2Router02.sol", "0.6.6+commit.6c089d02", 999999, "istanbul",
    );
  }
  // canonical-weth: truffle format; compiled by solc 0.5.0 with truffle's default settings (optimizer off).
  {
    const j = read("canonical-weth/build/contracts/WETH9.json");
    res.WETH9 = artifact(
      "WETH9", j.abi, j.bytecode, j.deployedBytecode, "canonical-weth/contracts/WETH9.sol",
      j.compiler.version.replace(/\.Emscripten\.clang$/, ""), null, "byzantium",
    );
  }
  return res;
}

function serialize(obj) {
  return JSON.stringify(obj, null, 2) + "\n";
}

const check = process.argv.includes("--check");
const solc = loadSolc();
const { artifacts, layouts } = compileOwn(solc);
const pkg = packageArtifacts();
for (const [k, v] of Object.entries(pkg)) {
  if (artifacts[k]) fail(`own contract ${k} clashes with a package artifact name`);
  artifacts[k] = v;
}
const wanted = new Map();
for (const name of Object.keys(artifacts).sort()) wanted.set(join(artifactDir, `${name}.json`), serialize(artifacts[name]));
const sortedLayouts = {};
for (const k of Object.keys(layouts).sort()) sortedLayouts[k] = layouts[k];
wanted.set(layoutFile, serialize(sortedLayouts));

if (check) {
  const differing = [];
  for (const [path, text] of wanted) {
    const have = existsSync(path) ? readFileSync(path, "utf8") : null;
    if (have !== text) differing.push(`${relative(root, path)}${have === null ? " (missing)" : " (differs)"}`);
  }
  const expected = new Set([...wanted.keys()].filter((p) => p.startsWith(artifactDir)));
  if (existsSync(artifactDir)) {
    for (const f of readdirSync(artifactDir)) {
      const p = join(artifactDir, f);
      if (f.endsWith(".json") && !expected.has(p)) differing.push(`${relative(root, p)} (stale: no source produces it)`);
    }
  }
  if (differing.length) {
    console.error("compile-contracts --check: committed artifacts differ from a fresh compile:\n  " + differing.join("\n  "));
    console.error("run `npm run compile-contracts` and commit assets/artifacts/ and assets/contracts/layouts.json");
    process.exit(1);
  }
  console.log(`compile-contracts --check: ${wanted.size} files up to date`);
} else {
  mkdirSync(artifactDir, { recursive: true });
  for (const [path, text] of wanted) writeFileSync(path, text);
  console.log(`compile-contracts: wrote ${wanted.size - 1} artifacts to ${relative(root, artifactDir)} and ${relative(root, layoutFile)}`);
}
