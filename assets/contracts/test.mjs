#!/usr/bin/env node
// Behaviour test of every artifact in assets/artifacts/ on a real Anvil (`npm run test-contracts`).
//
// 1. `compile.mjs --check`: a fresh solc-js compile reproduces the committed artifacts byte for byte.
// 2. Spawns node_modules/.bin/anvil on a free port, deploys each artifact with the constructor arguments documented in
//    assets/contracts/README.md and exercises its key functions (and the documented storage slots).
// Exits non-zero on any failure; every failure line starts with the contract's name.
//   flags: --skip-compile-check   skip step 1 (for quick iteration)
import { spawn } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..");
const ethers = require(join(root, "node_modules", "ethers"));
const { AbiCoder, Contract, ContractFactory, JsonRpcProvider, keccak256, parseEther, parseUnits, solidityPackedKeccak256, id: keccakId, MaxUint256, ZeroAddress, Interface } = ethers;
const abiCoder = AbiCoder.defaultAbiCoder();

const started = Date.now();
const failures = [];
const passes = [];

function artifact(name) {
  return JSON.parse(readFileSync(join(root, "assets", "artifacts", `${name}.json`), "utf8"));
}

class CheckError extends Error {}
function check(cond, msg) {
  if (!cond) throw new CheckError(msg);
}
function eq(actual, expected, what) {
  const a = typeof actual === "bigint" || typeof actual === "number" ? BigInt(actual) : actual;
  const e = typeof expected === "bigint" || typeof expected === "number" ? BigInt(expected) : expected;
  const norm = (v) => (typeof v === "string" && /^0x[0-9a-fA-F]*$/.test(v) ? v.toLowerCase() : String(v));
  if (a !== e && norm(a) !== norm(e)) throw new CheckError(`${what}: expected ${e}, got ${a}`);
}

// ---------------------------------------------------------------- compile reproducibility

/** Runs `compile.mjs --check` in a child process (in parallel with the Anvil tests) and records the outcome. */
function compileCheck() {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [join(here, "compile.mjs"), "--check"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", (e) => {
      failures.push(`compile: cannot run compile.mjs --check: ${e.message}`);
      resolvePromise();
    });
    child.on("close", (code) => {
      if (code === 0) passes.push("compile: artifacts reproducible (compile.mjs --check)");
      else failures.push(`compile: ${out.trim()}`);
      resolvePromise();
    });
  });
}

// ---------------------------------------------------------------- anvil

function startAnvil() {
  const bin = join(root, "node_modules", ".bin", "anvil");
  const child = spawn(bin, ["--port", "0", "--host", "127.0.0.1", "--chain-id", "31337", "--accounts", "4", "--balance", "100000"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolvePromise, reject) => {
    let buf = "";
    const timer = setTimeout(() => reject(new Error("anvil did not print its port within 15 s")), 15000);
    child.on("error", (e) => reject(new Error(`cannot start anvil at ${bin}: ${e.message} (run npm install)`)));
    child.on("exit", (code) => reject(new Error(`anvil exited early with code ${code}: ${buf.slice(-500)}`)));
    child.stdout.on("data", (d) => {
      buf += d.toString();
      const m = buf.match(/Listening on 127\.0\.0\.1:(\d+)/);
      if (m) {
        clearTimeout(timer);
        child.stdout.removeAllListeners("data");
        child.stdout.resume();
        child.removeAllListeners("exit");
        resolvePromise({ child, url: `http://127.0.0.1:${m[1]}` });
      }
    });
    child.stderr.on("data", (d) => (buf += d.toString()));
  });
}

let provider;

async function receipt(hash) {
  for (let i = 0; i < 2000; i++) {
    const r = await provider.send("eth_getTransactionReceipt", [hash]);
    if (r) return r;
    await new Promise((res) => setTimeout(res, 5));
  }
  throw new Error(`no receipt for ${hash} after 10 s`);
}

/** Sends a raw tx request from `signer` and waits for a successful receipt. */
async function sendRaw(signer, req) {
  const hash = await signer.sendUncheckedTransaction({ gasLimit: 15_000_000, ...req });
  const r = await receipt(hash);
  if (r.status !== "0x1") throw new CheckError(`transaction ${hash} reverted`);
  return r;
}

/** Calls a state-changing contract function: a static call first (to surface revert reasons), then the real tx. */
async function send(contract, fn, args = [], overrides = {}) {
  const f = contract.getFunction(fn);
  await f.staticCall(...args, overrides);
  const req = await f.populateTransaction(...args, overrides);
  return sendRaw(contract.runner, req);
}

/** Expects a static call to revert; `needle` must appear in the reason, custom error name or message. */
async function reverts(contract, fn, args, needle, overrides = {}) {
  try {
    await contract.getFunction(fn).staticCall(...args, overrides);
  } catch (e) {
    const text = [e.reason, e.revert?.name, decodeError(e.data), e.shortMessage, e.message].filter(Boolean).join(" | ");
    check(text.includes(needle), `${fn} reverted, but without "${needle}": ${text.slice(0, 300)}`);
    return;
  }
  throw new CheckError(`${fn}(${args.join(",")}) should revert with "${needle}" but succeeded`);
}

/** Expects deploying `name` with `args` to revert with `needle` in the reason. */
async function deployReverts(name, args, needle, signer) {
  const a = artifact(name);
  const tx = await new ContractFactory(a.abi, a.bytecode, signer).getDeployTransaction(...args);
  try {
    await provider.call({ from: signer.address, data: tx.data });
  } catch (e) {
    const text = [e.reason, e.shortMessage, e.message].filter(Boolean).join(" | ");
    check(text.includes(needle), `constructor reverted, but without "${needle}": ${text.slice(0, 300)}`);
    return;
  }
  throw new CheckError(`constructor(${args.join(",")}) should revert with "${needle}" but succeeded`);
}

async function deploy(name, args, signer) {
  const a = artifact(name);
  const factory = new ContractFactory(a.abi, a.bytecode, signer);
  const tx = await factory.getDeployTransaction(...args);
  const r = await sendRaw(signer, tx);
  const code = await provider.getCode(r.contractAddress);
  check(a.deployedBytecode.length > 2, `${name}: no deployed bytecode in artifact`);
  check(code.length > 2, `${name}: no code at ${r.contractAddress}`);
  const c = new Contract(r.contractAddress, a.abi, signer);
  c.deployTxHash = r.transactionHash;
  return c;
}

/** Moves a deployed contract to `target` the way the universe builder does (chain spike §2.1): runtime code from
 * eth_getCode (immutables included) plus every slot its constructor wrote (prestateTracer diff). */
async function transplant(contract, target) {
  const diff = await provider.send("debug_traceTransaction", [contract.deployTxHash, { tracer: "prestateTracer", tracerConfig: { diffMode: true } }]);
  const post = Object.entries(diff.post).find(([k]) => k.toLowerCase() === String(contract.target).toLowerCase())?.[1];
  check(post, "prestateTracer diff has no post-state for the deployed contract");
  await provider.send("anvil_setCode", [target, await provider.getCode(contract.target)]);
  for (const [k, v] of Object.entries(post.storage ?? {})) await provider.send("anvil_setStorageAt", [target, k, v]);
  await provider.send("anvil_setNonce", [target, "0x1"]);
  return new Contract(target, contract.interface, contract.runner);
}

let allErrors;
/** Name of a custom error in `data`, looked up across every artifact's ABI (e.g. an ERC20 error raised by a token). */
function decodeError(data) {
  if (typeof data !== "string" || data.length < 10) return undefined;
  if (!allErrors) {
    const frags = new Map();
    for (const f of readdirSync(join(root, "assets", "artifacts"))) {
      for (const item of JSON.parse(readFileSync(join(root, "assets", "artifacts", f), "utf8")).abi) {
        if (item.type === "error") frags.set(JSON.stringify(item), item);
      }
    }
    allErrors = new Interface([...frags.values()]);
  }
  try {
    return allErrors.parseError(data)?.name;
  } catch {
    return undefined;
  }
}

function mapSlot(key, slot) {
  return keccak256(abiCoder.encode(["address", "uint256"], [key, slot]));
}
function nestedSlot(k1, k2, slot) {
  return keccak256(abiCoder.encode(["address", "bytes32"], [k2, mapSlot(k1, slot)]));
}
async function slotValue(addr, slot) {
  return BigInt(await provider.send("eth_getStorageAt", [addr, typeof slot === "number" ? ethers.toBeHex(slot) : slot, "latest"]));
}
async function increaseTime(seconds) {
  await provider.send("evm_increaseTime", [seconds]);
  await provider.send("evm_mine", []);
}

async function test(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    passes.push(`${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    failures.push(`${name}: ${e instanceof CheckError ? e.message : e.stack || e}`);
  }
}

// ---------------------------------------------------------------- behaviour

async function behaviour() {
  const [deployer, alice, bob, carol] = await Promise.all([0, 1, 2, 3].map((i) => provider.getSigner(i)));
  const A = alice.address;
  const B = bob.address;
  const as = (c, s) => c.connect(s);
  const E18 = 10n ** 18n;
  const ctx = {};

  await test("BEP20Token", async () => {
    const usdt = await deploy("BEP20Token", ["Tether USD", "USDT", 18, 1_000_000n * E18, A], deployer);
    ctx.usdt = usdt;
    eq(await usdt.name(), "Tether USD", "name");
    eq(await usdt.symbol(), "USDT", "symbol");
    eq(await usdt.decimals(), 18, "decimals");
    eq(await usdt.owner(), deployer.address, "owner");
    eq(await usdt.getOwner(), deployer.address, "getOwner");
    eq(await usdt.balanceOf(A), 1_000_000n * E18, "holder balance");
    // Storage layout the builder and QuestBench funding rely on.
    eq(await slotValue(usdt.target, 0), BigInt(deployer.address), "slot 0 = owner");
    eq(await slotValue(usdt.target, mapSlot(A, 1)), 1_000_000n * E18, "balance in slot 1 mapping");
    eq(await slotValue(usdt.target, 3), 1_000_000n * E18, "slot 3 = totalSupply");
    await send(as(usdt, alice), "transfer", [B, 10n * E18]);
    eq(await usdt.balanceOf(B), 10n * E18, "balance after transfer");
    await send(as(usdt, alice), "increaseAllowance", [B, 5n * E18]);
    await send(as(usdt, alice), "increaseAllowance", [B, 2n * E18]);
    eq(await usdt.allowance(A, B), 7n * E18, "allowance after increaseAllowance");
    eq(await slotValue(usdt.target, nestedSlot(A, B, 2)), 7n * E18, "allowance in slot 2 nested mapping");
    await send(as(usdt, alice), "decreaseAllowance", [B, 3n * E18]);
    eq(await usdt.allowance(A, B), 4n * E18, "allowance after decreaseAllowance");
    await reverts(as(usdt, alice), "decreaseAllowance", [B, 5n * E18], "decreased allowance below zero");
    await reverts(as(usdt, alice), "mint", [A, 1n], "caller is not the owner");
    await send(usdt, "mint", [B, 1n]);
    eq(await usdt.totalSupply(), 1_000_000n * E18 + 1n, "totalSupply after mint");
    await reverts(as(usdt, bob), "transfer", [A, 100n * E18], "ERC20InsufficientBalance");
    ctx.busd = await deploy("BEP20Token", ["BUSD Token", "BUSD", 18, 1_000_000n * E18, A], deployer);
    ctx.cake = await deploy("BEP20Token", ["PancakeSwap Token", "Cake", 18, 1_000_000n * E18, A], deployer);
  });

  await test("CanonToken", async () => {
    const usdc = await deploy("CanonToken", ["USD Coin", "USDC", 6, 10_000_000n * 10n ** 6n, A], deployer);
    ctx.usdc = usdc;
    eq(await usdc.decimals(), 6, "decimals");
    eq(await slotValue(usdc.target, mapSlot(A, 1)), 10_000_000n * 10n ** 6n, "balance in slot 1 mapping");
    const deadline = 4_000_000_000n;
    const value = 123n * 10n ** 6n;
    const domain = { name: "USD Coin", version: "1", chainId: 31337, verifyingContract: usdc.target };
    const types = { Permit: [
      { name: "owner", type: "address" }, { name: "spender", type: "address" }, { name: "value", type: "uint256" },
      { name: "nonce", type: "uint256" }, { name: "deadline", type: "uint256" },
    ] };
    const sig = ethers.Signature.from(await alice.signTypedData(domain, types, { owner: A, spender: B, value, nonce: 0n, deadline }));
    await send(as(usdc, bob), "permit", [A, B, value, deadline, sig.v, sig.r, sig.s]);
    eq(await usdc.allowance(A, B), value, "allowance after permit");
    eq(await usdc.nonces(A), 1n, "nonce after permit");
    await reverts(as(usdc, bob), "permit", [A, B, value, deadline, sig.v, sig.r, sig.s], "ERC2612InvalidSigner");
    await send(as(usdc, bob), "transferFrom", [A, B, value]);
    eq(await usdc.balanceOf(B), value, "balance after transferFrom");
    ctx.dai = await deploy("CanonToken", ["Dai Stablecoin", "DAI", 18, 10_000_000n * E18, A], deployer);
    ctx.wbtc = await deploy("CanonToken", ["Wrapped BTC", "WBTC", 8, 21_000_000n * 10n ** 8n, A], deployer);
  });

  await test("TetherToken", async () => {
    const usdt = await deploy("TetherToken", ["Tether USD", "USDT", 6, 1_000_000_000n * 10n ** 6n, A], deployer);
    ctx.usdt6 = usdt;
    eq(await usdt.decimals(), 6, "decimals");
    eq(await slotValue(usdt.target, mapSlot(A, 2)), 1_000_000_000n * 10n ** 6n, "balance in slot 2 mapping (mainnet USDT layout)");
    // transfer/approve/transferFrom return NO data, like mainnet USDT.
    const data = usdt.interface.encodeFunctionData("transfer", [B, 5n * 10n ** 6n]);
    const ret = await provider.call({ from: A, to: usdt.target, data });
    eq(ret, "0x", "transfer return data");
    const retApprove = await provider.call({ from: A, to: usdt.target, data: usdt.interface.encodeFunctionData("approve", [B, 1n]) });
    eq(retApprove, "0x", "approve return data");
    await send(as(usdt, alice), "transfer", [B, 5n * 10n ** 6n]);
    eq(await usdt.balanceOf(B), 5n * 10n ** 6n, "balance after transfer");
    await send(as(usdt, alice), "approve", [B, 100n]);
    await reverts(as(usdt, alice), "approve", [B, 200n], "approve from non-zero to non-zero");
    await send(as(usdt, alice), "approve", [B, 0n]);
    await send(as(usdt, alice), "approve", [B, 200n]);
    eq(await slotValue(usdt.target, nestedSlot(A, B, 5)), 200n, "allowance in slot 5 nested mapping");
    await send(as(usdt, bob), "transferFrom", [A, B, 150n]);
    eq(await usdt.allowance(A, B), 50n, "allowance after transferFrom");
    await reverts(as(usdt, bob), "transferFrom", [A, B, 51n], "exceeds allowance");
    await reverts(as(usdt, carol), "transfer", [A, 1n], "exceeds balance");
  });

  await test("WETH9", async () => {
    const weth = await deploy("WETH9", [], deployer);
    ctx.weth = weth;
    await send(as(weth, alice), "deposit", [], { value: parseEther("50") });
    eq(await weth.balanceOf(A), parseEther("50"), "balance after deposit");
    eq(await slotValue(weth.target, mapSlot(A, 3)), parseEther("50"), "balance in slot 3 mapping");
    await send(as(weth, alice), "withdraw", [parseEther("1")]);
    eq(await weth.balanceOf(A), parseEther("49"), "balance after withdraw");
    eq(await weth.name(), "Wrapped Ether", "name");
    // Slot 0/1 hold name/symbol as Solidity short strings (data left-aligned, last byte = 2 * length): the builder
    // rewrites them to "Wrapped BNB"/"WBNB" for the BSC profile.
    eq(await slotValue(weth.target, 0), BigInt(ethers.hexlify(ethers.toUtf8Bytes("Wrapped Ether")).padEnd(64, "0").slice(0, 64) + "1a"), "slot 0 = name short string");
    eq(await slotValue(weth.target, 2), 18n, "slot 2 = decimals");
  });

  await test("UniswapV2Factory/UniswapV2Pair/UniswapV2Router02", async () => {
    const factory = await deploy("UniswapV2Factory", [deployer.address], deployer);
    const router = await deploy("UniswapV2Router02", [factory.target, ctx.weth.target], deployer);
    ctx.router = router;
    eq(await router.factory(), factory.target, "router.factory()");
    eq(await router.WETH(), ctx.weth.target, "router.WETH()");
    eq(keccak256(artifact("UniswapV2Pair").bytecode), "0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f", "pair init code hash");
    const amount = 100_000n * E18;
    await send(as(ctx.usdt, alice), "approve", [router.target, MaxUint256]);
    await send(as(ctx.busd, alice), "approve", [router.target, MaxUint256]);
    await send(as(router, alice), "addLiquidity", [ctx.usdt.target, ctx.busd.target, amount, amount, 0, 0, A, 4_000_000_000n]);
    const pairAddr = await factory.getPair(ctx.usdt.target, ctx.busd.target);
    const [t0, t1] = BigInt(ctx.usdt.target) < BigInt(ctx.busd.target) ? [ctx.usdt.target, ctx.busd.target] : [ctx.busd.target, ctx.usdt.target];
    const expected = ethers.getCreate2Address(factory.target, solidityPackedKeccak256(["address", "address"], [t0, t1]), keccak256(artifact("UniswapV2Pair").bytecode));
    eq(pairAddr, expected, "pair CREATE2 address");
    const pair = new Contract(pairAddr, artifact("UniswapV2Pair").abi, alice);
    ctx.lp = pair;
    check((await pair.balanceOf(A)) > 0n, "LP minted to the provider");
    // Storage facts the universe builder relies on (README "Uniswap V2 storage").
    eq(await slotValue(factory.target, 1), BigInt(deployer.address), "factory slot 1 = feeToSetter");
    eq(await slotValue(factory.target, 3), 1n, "factory slot 3 = allPairs.length");
    eq(await slotValue(pairAddr, 0), await pair.totalSupply(), "pair slot 0 = totalSupply");
    eq(await slotValue(pairAddr, mapSlot(A, 1)), await pair.balanceOf(A), "pair slot 1 = balanceOf mapping");
    eq(await slotValue(pairAddr, 3), BigInt(await pair.DOMAIN_SEPARATOR()), "pair slot 3 = DOMAIN_SEPARATOR");
    eq(await slotValue(pairAddr, 5), BigInt(factory.target), "pair slot 5 = factory");
    eq(await slotValue(pairAddr, 6), BigInt(t0), "pair slot 6 = token0");
    eq(await slotValue(pairAddr, 7), BigInt(t1), "pair slot 7 = token1");
    const [r0, r1, ts] = await pair.getReserves();
    eq(await slotValue(pairAddr, 8), (BigInt(ts) << 224n) | (BigInt(r1) << 112n) | BigInt(r0), "pair slot 8 = reserve0|reserve1|blockTimestampLast");
    eq(await slotValue(pairAddr, 12), 1n, "pair slot 12 = unlocked");
    const amountIn = 100n * E18;
    const [, quoted] = await router.getAmountsOut(amountIn, [ctx.usdt.target, ctx.busd.target]);
    // 0.30 % Uniswap V2 fee.
    eq(quoted, (amountIn * 997n * amount) / (amount * 1000n + amountIn * 997n), "getAmountsOut (0.30 % fee)");
    const before = await ctx.busd.balanceOf(B);
    await send(as(router, alice), "swapExactTokensForTokens", [amountIn, 0, [ctx.usdt.target, ctx.busd.target], B, 4_000_000_000n]);
    eq((await ctx.busd.balanceOf(B)) - before, quoted, "swap output equals quote");
  });

  await test("PancakeSquad", async () => {
    const ps = await deploy("PancakeSquad", [A], deployer);
    eq(await ps.name(), "Pancake Squad", "name");
    eq(await ps.symbol(), "PS", "symbol");
    eq(await ps.balanceOf(A), 20, "holder balance");
    eq(await ps.ownerOf(1), A, "ownerOf(1)");
    eq(await ps.ownerOf(20), A, "ownerOf(20)");
    await reverts(ps, "ownerOf", [21], "ERC721NonexistentToken");
    eq(await ps.tokenURI(7), "ipfs://QmPancakeSquad/7", "tokenURI");
    eq(await ps.totalSupply(), 20, "totalSupply");
    eq(await ps.tokenOfOwnerByIndex(A, 0), 1, "tokenOfOwnerByIndex(holder, 0)");
    eq(await ps.tokenByIndex(19), 20, "tokenByIndex(19)");
    await send(as(ps, alice), "approve", [B, 1]);
    eq(await ps.getApproved(1), B, "getApproved");
    await send(as(ps, bob), "safeTransferFrom(address,address,uint256)", [A, B, 1]);
    eq(await ps.ownerOf(1), B, "owner after 3-arg safeTransferFrom");
    await send(as(ps, alice), "setApprovalForAll", [B, true]);
    eq(await ps.isApprovedForAll(A, B), true, "isApprovedForAll");
    await send(as(ps, bob), "safeTransferFrom(address,address,uint256,bytes)", [A, B, 2, "0x1234"]);
    eq(await ps.ownerOf(2), B, "owner after 4-arg safeTransferFrom");
    eq(await ps.tokenOfOwnerByIndex(B, 1), 2, "enumeration follows transfers");
    // Receiver check: a contract without onERC721Received is refused by safeTransferFrom, accepted by transferFrom.
    await reverts(as(ps, alice), "safeTransferFrom(address,address,uint256)", [A, ctx.usdt.target, 3], "ERC721InvalidReceiver");
    await send(as(ps, alice), "transferFrom", [A, ctx.usdt.target, 3]);
    eq(await ps.ownerOf(3), ctx.usdt.target, "owner after transferFrom to contract");
    await reverts(as(ps, carol), "transferFrom", [A, B, 4], "ERC721InsufficientApproval");
  });

  await test("ERC721NFT", async () => {
    const nft = await deploy("ERC721NFT", [A], deployer);
    eq(await nft.name(), "NFT Collection", "name");
    eq(await nft.symbol(), "NFT", "symbol");
    eq(await nft.balanceOf(A), 10, "holder balance");
    eq(await nft.ownerOf(10), A, "ownerOf(10)");
    await reverts(nft, "ownerOf", [11], "ERC721NonexistentToken");
    eq(await nft.tokenURI(3), "ipfs://QmTest/3", "tokenURI(3)");
    await send(as(nft, alice), "safeTransferFrom(address,address,uint256,bytes)", [A, B, 4, "0x"]);
    eq(await nft.ownerOf(4), B, "owner after safeTransferFrom");
  });

  await test("CrucibleNFT", async () => {
    const nft = await deploy("CrucibleNFT", [A], deployer);
    eq(await nft.balanceOf(A), 20, "holder balance");
    eq(await nft.ownerOf(20), A, "ownerOf(20)");
    eq(await nft.tokenURI(1), "ipfs://crucible-nft/1", "tokenURI(1)");
  });

  const erc1155Test = (name, amounts, uriPrefix) => async () => {
    const t = await deploy(name, [A], deployer);
    for (let i = 0; i < amounts.length; i++) eq(await t.balanceOf(A, i + 1), amounts[i], `balanceOf(holder, ${i + 1})`);
    eq(await t.balanceOf(A, amounts.length + 1), 0, `balanceOf(holder, ${amounts.length + 1})`);
    check((await t.uri(1)).startsWith(uriPrefix), `uri(1) starts with ${uriPrefix}`);
    await send(as(t, alice), "safeTransferFrom", [A, B, 1, 10, "0x"]);
    eq(await t.balanceOf(B, 1), 10, "recipient balance after safeTransferFrom");
    await send(as(t, alice), "safeBatchTransferFrom", [A, B, [2, 3], [5, 1], "0x"]);
    const bal = await t.balanceOfBatch([B, B], [2, 3]);
    eq(bal[0], 5, "batch id 2");
    eq(bal[1], 1, "batch id 3");
    await reverts(as(t, alice), "safeTransferFrom", [A, ctx.usdt.target, 1, 1, "0x"], "ERC1155InvalidReceiver");
    await reverts(as(t, bob), "safeTransferFrom", [A, B, 1, 1, "0x"], "ERC1155MissingApprovalForAll");
    await send(as(t, alice), "setApprovalForAll", [B, true]);
    eq(await t.isApprovedForAll(A, B), true, "isApprovedForAll");
    await send(as(t, bob), "safeTransferFrom", [A, B, 1, 1, "0x"]);
    eq(await t.balanceOf(B, 1), 11, "operator transfer");
  };
  await test("TestERC1155Token", erc1155Test("TestERC1155Token", [1000, 500, 100], "ipfs://QmTest1155/"));
  await test("CrucibleItems", erc1155Test("CrucibleItems", [1000, 500, 100, 10, 1], "ipfs://crucible-items/"));

  await test("ERC1363Token", async () => {
    const t = await deploy("ERC1363Token", [A], deployer);
    const mock = await deploy("ERC1363ReceiverMock", [], deployer);
    eq(await t.name(), "ERC1363", "name");
    eq(await t.symbol(), "E1363", "symbol");
    eq(await t.decimals(), 18, "decimals");
    eq(await t.balanceOf(A), 1_000_000n * E18, "holder balance");
    eq(await slotValue(t.target, mapSlot(A, 4)), 1_000_000n * E18, "balance in slot 4 mapping (reference layout)");
    eq(await slotValue(t.target, 3), 1_000_000n * E18, "slot 3 = totalSupply");
    eq(t.interface.getFunction("transferAndCall(address,uint256)").selector, "0x1296ee62", "2-arg transferAndCall selector");
    eq(t.interface.getFunction("transferAndCall(address,uint256,bytes)").selector, "0x4000aea0", "3-arg transferAndCall selector");
    eq(t.interface.getFunction("approveAndCall(address,uint256)").selector, "0x3177029f", "2-arg approveAndCall selector");
    eq(t.interface.getFunction("approveAndCall(address,uint256,bytes)").selector, "0xcae9ca51", "3-arg approveAndCall selector");
    // To an EOA: plain transfer, no callback.
    await send(as(t, alice), "transferAndCall(address,uint256)", [B, 7n * E18]);
    eq(await t.balanceOf(B), 7n * E18, "EOA balance after transferAndCall");
    // To a contract: the ERC-1363 receiver hook runs and must return its selector.
    await send(as(t, alice), "transferAndCall(address,uint256,bytes)", [mock.target, 3n * E18, "0xabcd"]);
    eq(await t.balanceOf(mock.target), 3n * E18, "receiver balance");
    eq(await mock.lastFrom(), A, "hook saw from");
    eq(await mock.lastValue(), 3n * E18, "hook saw value");
    eq(await mock.lastData(), "0xabcd", "hook saw data");
    await reverts(as(t, alice), "transferAndCall(address,uint256,bytes)", [mock.target, 1n, ethers.hexlify(ethers.toUtf8Bytes("reject"))], "rejected");
    await reverts(as(t, alice), "transferAndCall(address,uint256)", [ctx.usdt.target, 1n], "require(false)"); // no hook: empty revert;
    await send(as(t, alice), "approveAndCall(address,uint256)", [mock.target, 9n]);
    eq(await t.allowance(A, mock.target), 9n, "allowance after approveAndCall");
    eq(await mock.calls(), 2n, "spender hook called");
    await send(as(t, alice), "approveAndCall(address,uint256,bytes)", [B, 11n, "0x01"]);
    eq(await t.allowance(A, B), 11n, "allowance after approveAndCall to EOA");
    await send(as(t, bob), "transferFromAndCall(address,address,uint256)", [A, mock.target, 11n]);
    eq(await t.allowance(A, B), 0n, "allowance spent by transferFromAndCall");
    eq(await mock.lastOperator(), B, "hook saw operator");
    // Burn-by-transfer to the zero address is allowed (reference behaviour).
    await send(as(t, alice), "transfer", [ZeroAddress, 1n]);
    eq(await t.balanceOf(ZeroAddress), 1n, "transfer to the zero address moves the balance");
    // EIP-2612 permit; the domain separator follows the current chain id and address.
    const domain = { name: "ERC1363", version: "1", chainId: 31337, verifyingContract: t.target };
    eq(await t.DOMAIN_SEPARATOR(), ethers.TypedDataEncoder.hashDomain(domain), "DOMAIN_SEPARATOR");
    const types = { Permit: [
      { name: "owner", type: "address" }, { name: "spender", type: "address" }, { name: "value", type: "uint256" },
      { name: "nonce", type: "uint256" }, { name: "deadline", type: "uint256" },
    ] };
    const msg = { owner: A, spender: B, value: 555n, nonce: 0n, deadline: 2_000_000_000n };
    const sig = ethers.Signature.from(await alice.signTypedData(domain, types, msg));
    await reverts(as(t, bob), "permit", [A, B, 556n, msg.deadline, sig.v, sig.r, sig.s], "invalid permit signature");
    await send(as(t, bob), "permit", [A, B, 555n, msg.deadline, sig.v, sig.r, sig.s]);
    eq(await t.allowance(A, B), 555n, "allowance after permit");
    eq(await t.nonces(A), 1n, "nonce after permit");
    await reverts(as(t, bob), "permit", [A, B, 555n, msg.deadline, sig.v, sig.r, sig.s], "invalid permit signature");
  });

  await test("transplant (CanonToken/ERC1363Token/BEP20Token moved to canonical addresses)", async () => {
    const permitTypes = { Permit: [
      { name: "owner", type: "address" }, { name: "spender", type: "address" }, { name: "value", type: "uint256" },
      { name: "nonce", type: "uint256" }, { name: "deadline", type: "uint256" },
    ] };
    const checkPermit = async (token, name, what) => {
      const domain = { name, version: "1", chainId: 31337, verifyingContract: token.target };
      const nonce = await token.nonces(A);
      const sig = ethers.Signature.from(await alice.signTypedData(domain, permitTypes, { owner: A, spender: carol.address, value: 77n, nonce, deadline: 4_000_000_000n }));
      await send(as(token, bob), "permit", [A, carol.address, 77n, 4_000_000_000n, sig.v, sig.r, sig.s]);
      eq(await token.allowance(A, carol.address), 77n, `${what}: permit signed for the new address`);
    };
    const usdc = await deploy("CanonToken", ["USD Coin", "USDC", 6, 5_000_000n, A], deployer);
    const moved = await transplant(usdc, "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48");
    eq(await moved.decimals(), 6, "CanonToken: decimals immutable survives");
    eq(await moved.name(), "USD Coin", "CanonToken: name");
    eq(await moved.balanceOf(A), 5_000_000n, "CanonToken: holder balance");
    eq(await moved.owner(), deployer.address, "CanonToken: owner");
    await checkPermit(moved, "USD Coin", "CanonToken");
    const e1363 = await deploy("ERC1363Token", [A], deployer);
    const moved1363 = await transplant(e1363, "0x00000000000000000000000000000000000c1363");
    eq(await moved1363.balanceOf(A), 1_000_000n * E18, "ERC1363Token: holder balance");
    await checkPermit(moved1363, "ERC1363", "ERC1363Token");
    const cake = await deploy("BEP20Token", ["PancakeSwap Token", "Cake", 18, 9n * E18, A], deployer);
    const movedCake = await transplant(cake, "0x0E09FaBB73Bd3Ade0a17ECC321fD13a19e81cE82");
    eq(await movedCake.symbol(), "Cake", "BEP20Token: symbol");
    await send(as(movedCake, alice), "transfer", [B, 4n * E18]);
    eq(await movedCake.balanceOf(B), 4n * E18, "BEP20Token: transfer at the new address");
    await send(movedCake, "mint", [B, 1n]);
    eq(await movedCake.totalSupply(), 9n * E18 + 1n, "BEP20Token: owner can mint at the new address");
  });

  await test("FlashLoanReceiver", async () => {
    const fl = await deploy("FlashLoanReceiver", [ctx.usdt.target], deployer);
    eq(fl.interface.getFunction("executeFlashLoan").selector, "0x6065c245", "executeFlashLoan selector (QuestBench)");
    await send(as(ctx.usdt, alice), "transfer", [fl.target, 10_000n * E18]);
    eq(await fl.poolBalance(), 10_000n * E18, "poolBalance");
    await reverts(as(fl, alice), "executeFlashLoan", [ctx.usdt.target, 1000n * E18], "ERC20InsufficientAllowance");
    await send(as(ctx.usdt, alice), "approve", [fl.target, MaxUint256]);
    const before = await ctx.usdt.balanceOf(A);
    await send(as(fl, alice), "executeFlashLoan", [ctx.usdt.target, 1000n * E18]);
    eq(before - (await ctx.usdt.balanceOf(A)), 3n * E18, "borrower pays exactly the 0.3 % fee");
    eq(await fl.poolBalance(), 10_003n * E18, "pool keeps the fee");
    await reverts(as(fl, alice), "executeFlashLoan", [ctx.busd.target, 1n], "unsupported token");
    await reverts(as(fl, alice), "executeFlashLoan", [ctx.usdt.target, 20_000n * E18], "insufficient pool balance");
    await reverts(as(fl, alice), "withdraw", [1n], "caller is not the owner");
  });

  await test("SimpleCounter", async () => {
    const c = await deploy("SimpleCounter", [], deployer);
    await send(as(c, alice), "increment");
    await send(as(c, bob), "increment");
    eq(await c.getCounter(), 2, "getCounter");
    eq(await c.counter(), 2, "counter");
    await reverts(as(c, alice), "reset", [], "caller is not the owner");
    await send(c, "reset");
    eq(await c.getCounter(), 0, "counter after reset");
    ctx.counter = c;
  });

  await test("DonationBox", async () => {
    const d = await deploy("DonationBox", [], deployer);
    await send(as(d, alice), "donate", [], { value: parseEther("1.5") });
    await sendRaw(bob, { to: d.target, value: parseEther("0.5") });
    eq(await d.getDonation(A), parseEther("1.5"), "getDonation(alice)");
    eq(await d.donations(B), parseEther("0.5"), "donations(bob) via receive");
    eq(await d.totalDonations(), parseEther("2"), "totalDonations");
    eq(await d.getBalance(), parseEther("2"), "getBalance");
    await reverts(as(d, alice), "donate", [], "must be greater than zero", { value: 0 });
    await reverts(as(d, alice), "withdraw", [], "caller is not the owner");
    await send(d, "withdraw");
    eq(await provider.getBalance(d.target), 0n, "balance after withdraw");
  });

  await test("MessageBoard", async () => {
    const m = await deploy("MessageBoard", [], deployer);
    eq(await m.getMessage(), "Initial message", "initial message");
    await send(as(m, alice), "setMessage", ["hello crucible"]);
    const [msg, sender, count] = await m.getMessageInfo();
    eq(msg, "hello crucible", "message");
    eq(sender, A, "lastSender");
    eq(count, 1, "updateCount");
  });

  await test("Implementation/DelegateCallProxy", async () => {
    const impl = await deploy("Implementation", [], deployer);
    const proxy = await deploy("DelegateCallProxy", [impl.target], deployer);
    eq(await proxy.implementation(), impl.target, "implementation()");
    const viaProxy = new Contract(proxy.target, artifact("Implementation").abi, alice);
    eq(viaProxy.interface.getFunction("setValue").selector, "0x55241077", "setValue selector");
    await send(viaProxy, "setValue", [1234n]);
    eq(await viaProxy.getValue(), 1234n, "getValue through the proxy");
    eq(await slotValue(proxy.target, 0), 1234n, "proxy slot 0 written");
    eq(await impl.getValue(), 0n, "implementation storage untouched");
    await sendRaw(alice, { to: proxy.target, value: 1n });
    eq(await provider.getBalance(proxy.target), 1n, "proxy accepts ether");
    await deployReverts("DelegateCallProxy", [B], "implementation has no code", deployer);
  });

  await test("FallbackReceiver", async () => {
    const f = await deploy("FallbackReceiver", [], deployer);
    await sendRaw(alice, { to: f.target, value: parseEther("1") });
    await sendRaw(alice, { to: f.target, value: parseEther("2"), data: "0xdeadbeef" });
    await sendRaw(bob, { to: f.target, data: "0x01" });
    eq(await f.getReceivedCount(), 3, "receivedCount");
    eq(await f.totalReceived(), parseEther("3"), "totalReceived");
    eq(await f.getBalance(), parseEther("3"), "getBalance");
    await reverts(as(f, alice), "withdraw", [], "caller is not the owner");
  });

  const stakingTest = (name, tokenKey, noAllowanceError) => async () => {
    const token = ctx[tokenKey];
    const s = await deploy(name, [token.target], deployer);
    eq(await s.stakingToken(), token.target, "stakingToken");
    const amt = (await token.balanceOf(A)) / 4n;
    await reverts(as(s, alice), "deposit", [amt], noAllowanceError); // not approved yet;
    await send(as(token, alice), "approve", [s.target, amt]);
    const before = await token.balanceOf(A);
    await send(as(s, alice), "deposit", [amt]);
    eq(before - (await token.balanceOf(A)), amt, "token pulled on deposit");
    const [staked, depositTime] = await s.getUserInfo(A);
    eq(staked, amt, "staked amount");
    check(depositTime > 0n, "depositTime set");
    eq((await s.userInfo(A))[0], amt, "userInfo(addr).amount");
    await reverts(as(s, alice), "withdraw", [amt + 1n], "exceeds staked balance");
    await send(as(s, alice), "withdraw", [amt / 2n]);
    eq((await s.userInfo(A))[0], amt - amt / 2n, "staked after withdraw");
    eq(await token.balanceOf(A), before - amt + amt / 2n, "tokens returned on withdraw");
    eq(await s.totalStaked(), amt - amt / 2n, "totalStaked");
  };
  await test("SimpleStaking", stakingTest("SimpleStaking", "cake", "ERC20InsufficientAllowance"));
  await test("SimpleLPStaking", stakingTest("SimpleLPStaking", "lp", "ds-math-sub-underflow"));

  await test("SimpleRewardPool", async () => {
    const rate = 10n ** 16n; // 0.01e18 per second per 1e18 staked
    const pool = await deploy("SimpleRewardPool", [ctx.lp.target, ctx.cake.target, rate], deployer);
    eq(await pool.rewardRate(), rate, "rewardRate");
    await send(as(ctx.cake, alice), "transfer", [pool.target, 100n * E18]);
    const half = E18 / 2n;
    await send(as(ctx.lp, alice), "approve", [pool.target, MaxUint256]);
    await send(as(pool, alice), "deposit", [half]);
    await increaseTime(100);
    const pending = await pool.pendingReward(A);
    check(pending >= half * rate * 100n / E18 && pending <= half * rate * 102n / E18, `pendingReward after 100 s should be ~0.5 CAKE, got ${pending}`);
    const cakeBefore = await ctx.cake.balanceOf(A);
    await send(as(pool, alice), "harvest");
    check((await ctx.cake.balanceOf(A)) - cakeBefore >= pending, "harvest pays at least the pending reward");
    await send(as(pool, alice), "withdraw", [half / 5n]);
    eq((await pool.userInfo(A))[0], half - half / 5n, "staked after withdraw");
    await increaseTime(50);
    const lpBefore = await ctx.lp.balanceOf(A);
    const cakeBefore2 = await ctx.cake.balanceOf(A);
    await send(as(pool, alice), "emergencyWithdraw");
    eq((await ctx.lp.balanceOf(A)) - lpBefore, half - half / 5n, "emergencyWithdraw returns the stake");
    eq(await ctx.cake.balanceOf(A), cakeBefore2, "emergencyWithdraw pays no reward");
    eq(await pool.pendingReward(A), 0n, "rewards forfeited");
    await reverts(as(pool, alice), "emergencyWithdraw", [], "nothing staked");
    await deployReverts("SimpleRewardPool", [ctx.cake.target, ctx.cake.target, rate], "must differ", deployer);
  });

  await test("AaveV3Pool", async () => {
    const pool = await deploy("AaveV3Pool", [], deployer);
    const U6 = 10n ** 6n;
    await send(pool, "setReserve", [ctx.usdc.target, 1n * 10n ** 8n, 8000, 8500]);
    await send(pool, "setReserve", [ctx.weth.target, 3000n * 10n ** 8n, 8000, 8250]);
    await send(pool, "setReserve", [ctx.usdt6.target, 1n * 10n ** 8n, 7500, 8000]);
    await reverts(as(pool, alice), "setReserve", [ctx.dai.target, 1n, 1, 1], "caller is not the owner");
    eq((await pool.getReservesList()).length, 3, "getReservesList length");
    // Liquidity: alice supplies USDC on behalf of carol (the "builder" account).
    await send(as(ctx.usdc, alice), "approve", [pool.target, MaxUint256]);
    await send(as(pool, alice), "supply", [ctx.usdc.target, 100_000n * U6, carol.address, 0]);
    eq(await pool.aTokenBalanceOf(ctx.usdc.target, carol.address), 100_000n * U6, "aToken balance of onBehalfOf");
    // Bob: 10 WETH collateral via the legacy `deposit`.
    await send(as(ctx.weth, bob), "deposit", [], { value: parseEther("10") });
    await send(as(ctx.weth, bob), "approve", [pool.target, MaxUint256]);
    await send(as(pool, bob), "deposit", [ctx.weth.target, parseEther("10"), B, 0]);
    let d = await pool.getUserAccountData(B);
    eq(d[0], 30_000n * 10n ** 8n, "totalCollateralBase");
    eq(d[1], 0n, "totalDebtBase");
    eq(d[2], 24_000n * 10n ** 8n, "availableBorrowsBase (80 % LTV)");
    eq(d[3], 8250n, "currentLiquidationThreshold");
    eq(d[4], 8000n, "ltv");
    eq(d[5], MaxUint256, "healthFactor without debt");
    await reverts(as(pool, bob), "borrow", [ctx.usdc.target, 1000n * U6, 1, 0, B], "invalid interest rate mode");
    await reverts(as(pool, bob), "borrow", [ctx.usdc.target, 1000n * U6, 2, 0, A], "credit delegation");
    await reverts(as(pool, bob), "borrow", [ctx.usdc.target, 24_001n * U6, 2, 0, B], "collateral cannot cover new borrow");
    await reverts(pool, "borrow", [ctx.weth.target, 1n, 2, 0, deployer.address], "collateral balance is zero");
    await send(as(pool, bob), "borrow", [ctx.usdc.target, 20_000n * U6, 2, 0, B]);
    eq(await ctx.usdc.balanceOf(B), 20_000n * U6 + 123n * U6, "borrowed USDC received"); // 123 from the CanonToken permit test
    d = await pool.getUserAccountData(B);
    eq(d[1], 20_000n * 10n ** 8n, "totalDebtBase after borrow");
    eq(d[5], (30_000n * 10n ** 8n * 8250n / 10_000n) * E18 / (20_000n * 10n ** 8n), "healthFactor after borrow");
    await reverts(as(pool, bob), "withdraw", [ctx.weth.target, MaxUint256, B], "health factor would fall below 1");
    // Partial repay, then max repay returns the exact remaining debt.
    await send(as(ctx.usdc, bob), "approve", [pool.target, MaxUint256]);
    eq(await as(pool, bob).repay.staticCall(ctx.usdc.target, 5_000n * U6, 2, B), 5_000n * U6, "repay returns the amount");
    await send(as(pool, bob), "repay", [ctx.usdc.target, 5_000n * U6, 2, B]);
    await reverts(as(pool, alice), "repay", [ctx.usdc.target, MaxUint256, 2, B], "no explicit amount to repay on behalf");
    eq(await as(pool, bob).repay.staticCall(ctx.usdc.target, MaxUint256, 2, B), 15_000n * U6, "max repay returns the whole debt");
    await send(as(pool, bob), "repay", [ctx.usdc.target, MaxUint256, 2, B]);
    eq(await pool.variableDebtOf(ctx.usdc.target, B), 0n, "debt after max repay");
    const wethBefore = await ctx.weth.balanceOf(B);
    eq(await as(pool, bob).withdraw.staticCall(ctx.weth.target, MaxUint256, B), parseEther("10"), "max withdraw returns the balance");
    await send(as(pool, bob), "withdraw", [ctx.weth.target, MaxUint256, B]);
    eq((await ctx.weth.balanceOf(B)) - wethBefore, parseEther("10"), "WETH back after withdraw");
    await reverts(as(pool, bob), "withdraw", [ctx.weth.target, 1n, B], "not enough available user balance");
    // Non-standard USDT (no return values) works through SafeERC20.
    await send(as(ctx.usdt6, alice), "approve", [pool.target, 0n]);
    await send(as(ctx.usdt6, alice), "approve", [pool.target, 1000n * U6]);
    await send(as(pool, alice), "supply", [ctx.usdt6.target, 1000n * U6, A, 0]);
    await send(as(pool, alice), "withdraw", [ctx.usdt6.target, 400n * U6, B]);
    eq(await pool.aTokenBalanceOf(ctx.usdt6.target, A), 600n * U6, "USDT aToken balance after withdraw");
    await reverts(as(pool, alice), "supply", [ctx.dai.target, 1n, A, 0], "not listed");
  });

  await test("LidoStETH", async () => {
    const st = await deploy("LidoStETH", [], deployer);
    eq(await st.name(), "Liquid staked Ether 2.0", "name");
    eq(await st.symbol(), "stETH", "symbol");
    eq(await as(st, alice).submit.staticCall(ZeroAddress, { value: parseEther("2") }), parseEther("2"), "submit returns shares");
    await send(as(st, alice), "submit", [B], { value: parseEther("2") });
    await sendRaw(bob, { to: st.target, value: parseEther("1") });
    eq(await st.balanceOf(A), parseEther("2"), "balance after submit");
    eq(await st.sharesOf(B), parseEther("1"), "shares after plain ether payment");
    eq(await st.getTotalPooledEther(), parseEther("3"), "getTotalPooledEther");
    eq(await st.getTotalShares(), parseEther("3"), "getTotalShares");
    eq(await st.totalSupply(), parseEther("3"), "totalSupply");
    await send(as(st, alice), "transfer", [B, parseEther("0.5")]);
    eq(await st.balanceOf(B), parseEther("1.5"), "balance after transfer");
    await reverts(as(st, alice), "submit", [ZeroAddress], "ZERO_DEPOSIT", { value: 0 });
    await reverts(as(st, alice), "transfer", [B, parseEther("10")], "BALANCE_EXCEEDED");
  });

  await test("CometUSDC", async () => {
    const U6 = 10n ** 6n;
    const comet = await deploy("CometUSDC", [ctx.usdc.target, ctx.weth.target, ctx.wbtc.target], deployer);
    eq(await comet.baseToken(), ctx.usdc.target, "baseToken");
    eq(await comet.decimals(), 6, "decimals");
    await send(as(ctx.usdc, alice), "approve", [comet.target, MaxUint256]);
    await send(as(comet, alice), "supply", [ctx.usdc.target, 50_000n * U6]);
    eq(await comet.balanceOf(A), 50_000n * U6, "base balanceOf after supply");
    await send(as(comet, alice), "supplyTo", [carol.address, ctx.usdc.target, 1_000n * U6]);
    eq(await comet.balanceOf(carol.address), 1_000n * U6, "supplyTo credits dst");
    eq(await comet.totalSupply(), 51_000n * U6, "totalSupply");
    // Bob: WETH collateral, borrow USDC by withdrawing more base than supplied.
    await send(as(ctx.weth, bob), "approve", [comet.target, MaxUint256]);
    await send(as(comet, bob), "supply", [ctx.weth.target, parseEther("1")]);
    eq(await comet.collateralBalanceOf(B, ctx.weth.target), parseEther("1"), "collateralBalanceOf");
    await reverts(as(comet, bob), "withdraw", [ctx.usdc.target, 2_500n * U6], "not collateralized"); // 3000 * 0.825 = 2475
    await send(as(comet, bob), "withdraw", [ctx.usdc.target, 2_000n * U6]);
    eq(await comet.borrowBalanceOf(B), 2_000n * U6, "borrowBalanceOf");
    eq(await comet.balanceOf(B), 0n, "balanceOf of a borrower");
    await reverts(as(comet, bob), "withdraw", [ctx.weth.target, parseEther("1")], "not collateralized");
    await send(as(ctx.usdc, bob), "approve", [comet.target, MaxUint256]);
    await send(as(comet, bob), "supply", [ctx.usdc.target, MaxUint256]); // max = repay the whole borrow
    eq(await comet.borrowBalanceOf(B), 0n, "borrow repaid");
    await send(as(comet, bob), "withdrawTo", [carol.address, ctx.weth.target, parseEther("1")]);
    eq(await ctx.weth.balanceOf(carol.address), parseEther("1"), "withdrawTo sends collateral to `to`");
    const before = await ctx.usdc.balanceOf(A);
    await send(as(comet, alice), "withdraw", [ctx.usdc.target, 10_000n * U6]);
    eq((await ctx.usdc.balanceOf(A)) - before, 10_000n * U6, "base withdraw");
    eq(await comet.balanceOf(A), 40_000n * U6, "base balance after withdraw");
    await reverts(as(comet, alice), "supply", [ctx.dai.target, 1n], "asset is not supported");
    // WBTC collateral (8 decimals).
    await send(as(ctx.wbtc, alice), "approve", [comet.target, MaxUint256]);
    await send(as(comet, alice), "supply", [ctx.wbtc.target, 10n ** 8n]);
    eq(await comet.collateralBalanceOf(A, ctx.wbtc.target), 10n ** 8n, "WBTC collateral");
  });

  await test("CrucibleVault", async () => {
    const v = await deploy("CrucibleVault", [ctx.dai.target], deployer);
    eq(await v.name(), "Crucible Savings DAI", "name");
    eq(await v.symbol(), "csDAI", "symbol");
    eq(await v.asset(), ctx.dai.target, "asset");
    await send(as(ctx.dai, alice), "approve", [v.target, MaxUint256]);
    const shares = await as(v, alice).deposit.staticCall(100n * E18, A);
    await send(as(v, alice), "deposit", [100n * E18, A]);
    eq(await v.balanceOf(A), shares, "shares minted");
    eq(await v.totalAssets(), 100n * E18, "totalAssets");
    const before = await ctx.dai.balanceOf(B);
    await send(as(v, alice), "redeem", [shares / 2n, B, A]);
    eq(shares, 100n * E18, "shares 1:1 for the first deposit");
    eq((await ctx.dai.balanceOf(B)) - before, 50n * E18, "assets out on redeem");
    eq(await v.balanceOf(A), shares / 2n, "shares burnt on redeem");
    await reverts(as(v, bob), "redeem", [1n, B, A], "ERC20InsufficientAllowance");
  });

  await test("CrucibleVotes/CrucibleGovernor", async () => {
    const token = await deploy("CrucibleVotes", [A, 1_000_000n * E18], deployer);
    eq(await token.getVotes(A), 1_000_000n * E18, "holder votes self-delegated");
    eq(await token.CLOCK_MODE(), "mode=timestamp", "CLOCK_MODE");
    const gov = await deploy("CrucibleGovernor", [token.target, 1, 300, 4], deployer);
    eq(await gov.votingDelay(), 1, "votingDelay");
    eq(await gov.votingPeriod(), 300, "votingPeriod");
    const targets = [ctx.counter.target];
    const values = [0n];
    const calldatas = [ctx.counter.interface.encodeFunctionData("increment")];
    const description = "Increment the counter";
    const descHash = keccakId(description);
    const expectedId = await gov.hashProposal(targets, values, calldatas, descHash);
    const gotId = await as(gov, alice).propose.staticCall(targets, values, calldatas, description);
    eq(gotId, expectedId, "propose returns hashProposal");
    await send(as(gov, alice), "propose", [targets, values, calldatas, description]);
    eq(await gov.state(expectedId), 0, "state Pending");
    await increaseTime(2);
    eq(await gov.state(expectedId), 1, "state Active");
    await send(as(gov, alice), "castVote", [expectedId, 1]);
    eq(await gov.hasVoted(expectedId, A), true, "hasVoted");
    await reverts(as(gov, alice), "castVote", [expectedId, 1], "GovernorAlreadyCastVote");
    await reverts(as(gov, alice), "execute", [targets, values, calldatas, descHash], "GovernorUnexpectedProposalState");
    await increaseTime(301);
    eq(await gov.state(expectedId), 4, "state Succeeded");
    const before = await ctx.counter.getCounter();
    await send(as(gov, bob), "execute", [targets, values, calldatas, descHash]);
    eq(await gov.state(expectedId), 7, "state Executed");
    eq(await ctx.counter.getCounter(), before + 1n, "proposal action ran");
  });

  await test("CryptoPunksMarket", async () => {
    const p = await deploy("CryptoPunksMarket", [A], deployer);
    eq(await p.punkIndexToAddress(0), A, "punk 0 owner");
    eq(await p.punkIndexToAddress(99), A, "punk 99 owner");
    eq(await p.punkIndexToAddress(100), ZeroAddress, "punk 100 unassigned");
    eq(await p.balanceOf(A), 100, "holder balance");
    await send(as(p, alice), "transferPunk", [B, 5]);
    eq(await p.punkIndexToAddress(5), B, "owner after transferPunk");
    eq(await p.balanceOf(B), 1, "recipient balance");
    await reverts(as(p, alice), "transferPunk", [B, 5], "does not own");
    await send(as(p, alice), "offerPunkForSale", [6, parseEther("1")]);
    const offer = await p.punksOfferedForSale(6);
    eq(offer.isForSale, true, "isForSale");
    eq(offer.minValue, parseEther("1"), "minValue");
    eq(offer.seller, A, "seller");
    await reverts(as(p, bob), "buyPunk", [6], "not enough ether", { value: parseEther("0.5") });
    await send(as(p, bob), "buyPunk", [6], { value: parseEther("1") });
    eq(await p.punkIndexToAddress(6), B, "owner after buyPunk");
    eq((await p.punksOfferedForSale(6)).isForSale, false, "offer cleared");
    eq(await p.pendingWithdrawals(A), parseEther("1"), "pendingWithdrawals of seller");
    const before = await provider.getBalance(A);
    const r = await send(as(p, alice), "withdraw");
    const gas = BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice);
    eq((await provider.getBalance(A)) - before + gas, parseEther("1"), "withdraw pays the proceeds");
    eq(await p.pendingWithdrawals(A), 0n, "pendingWithdrawals after withdraw");
    await send(as(p, alice), "offerPunkForSaleToAddress", [7, 0n, carol.address]);
    await reverts(as(p, bob), "buyPunk", [7], "reserved for another buyer", { value: 0n });
    await send(as(p, carol), "buyPunk", [7], { value: 0n });
    eq(await p.punkIndexToAddress(7), carol.address, "private sale");
  });
}

// ---------------------------------------------------------------- main

async function main() {
  const skipCompile = process.argv.includes("--skip-compile-check");
  const compiled = skipCompile ? Promise.resolve() : compileCheck();
  let anvil;
  try {
    anvil = await startAnvil();
  } catch (e) {
    failures.push(`anvil: ${e.message}`);
  }
  if (anvil) {
    const killAnvil = () => anvil.child.kill("SIGKILL");
    process.on("exit", killAnvil);
    for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => process.exit(130));
    provider = new JsonRpcProvider(anvil.url, undefined, { staticNetwork: true, cacheTimeout: -1, pollingInterval: 20 });
    try {
      await behaviour();
    } catch (e) {
      failures.push(`harness: ${e.stack || e}`);
    } finally {
      provider.destroy();
      anvil.child.kill("SIGKILL");
    }
  }
  await compiled;
  for (const p of passes) console.log(`ok   ${p}`);
  for (const f of failures) console.log(`FAIL ${f}`);
  console.log(`test-contracts: ${passes.length} passed, ${failures.length} failed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.exit(failures.length ? 1 : 0);
}

main();
