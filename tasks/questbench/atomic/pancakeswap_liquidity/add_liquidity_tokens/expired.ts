import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const router = new ethers.Interface(["function addLiquidity(address tokenA, address tokenB, uint256 amountADesired, uint256 amountBDesired, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline) returns (uint256, uint256, uint256)", "function addLiquidityETH(address token, uint256 amountTokenDesired, uint256 amountTokenMin, uint256 amountETHMin, address to, uint256 deadline) payable returns (uint256, uint256, uint256)", "function removeLiquidity(address tokenA, address tokenB, uint256 liquidity, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline) returns (uint256, uint256)", "function removeLiquidityETH(address token, uint256 liquidity, uint256 amountTokenMin, uint256 amountETHMin, address to, uint256 deadline) returns (uint256, uint256)"]);
  const provider = new ethers.JsonRpcProvider(providerUrl, undefined, { staticNetwork: true });
  const pair = new ethers.Contract("{{pair}}", ["function getReserves() view returns (uint112, uint112, uint32)", "function token0() view returns (address)", "function totalSupply() view returns (uint256)", "function balanceOf(address) view returns (uint256)"], provider);
  const now = BigInt((await provider.getBlock("latest"))!.timestamp);
  const [r0, r1] = await pair.getReserves();
  const token0 = (await pair.token0()).toLowerCase();
  // the router takes the desired amounts at the pool ratio
  const optimal = (tokenA: string, da: bigint, db: bigint): [bigint, bigint] => {
    const [ra, rb] = tokenA.toLowerCase() === token0 ? [r0, r1] : [r1, r0];
    const bOpt = da * rb / ra;
    return bOpt <= db ? [da, bOpt] : [db * ra / rb, db];
  };
  const desiredA = ethers.parseUnits("{{amount_a}}", 18);
  const desiredB = ethers.parseUnits("{{amount_b}}", 18);
  const [useA, useB] = optimal("{{token}}", desiredA, desiredB);
  return { to: "{{router}}", data: router.encodeFunctionData("addLiquidity", ["{{token}}", "{{token_b}}", desiredA, desiredB, useA * 95n / 100n, useB * 95n / 100n, agentAddress, now - 600n]) };
}
