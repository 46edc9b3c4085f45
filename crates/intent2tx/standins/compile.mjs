// Compiles StandIns.sol with the repository's solc-js and prints each contract's runtime bytecode
// (run from the worktree root after `npm ci`: node crates/intent2tx/standins/compile.mjs).
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
const require = createRequire(path.resolve("package.json"));
const solc = require("solc");
const dir = path.dirname(new URL(import.meta.url).pathname);
const input = {
  language: "Solidity",
  sources: { "StandIns.sol": { content: fs.readFileSync(path.join(dir, "StandIns.sol"), "utf8") } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: "cancun",
    metadata: { bytecodeHash: "none" },
    outputSelection: { "*": { "*": ["evm.deployedBytecode.object"] } },
  },
};
const out = JSON.parse(solc.compile(JSON.stringify(input)));
for (const e of out.errors ?? []) {
  if (e.severity === "error") { console.error(e.formattedMessage); process.exit(1); }
}
console.error(`solc ${solc.version()}`);
for (const [name, c] of Object.entries(out.contracts["StandIns.sol"])) {
  console.log(`${name} 0x${c.evm.deployedBytecode.object}`);
}
