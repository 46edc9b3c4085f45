import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const router = new ethers.Interface(["function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline) payable returns (uint256[])", "function swapExactTokensForETH(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[])", "function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[])", "function getAmountsOut(uint256 amountIn, address[] path) view returns (uint256[])", "function addLiquidity(address tokenA, address tokenB, uint256 amountADesired, uint256 amountBDesired, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline) returns (uint256, uint256, uint256)", "function addLiquidityETH(address token, uint256 amountTokenDesired, uint256 amountTokenMin, uint256 amountETHMin, address to, uint256 deadline) payable returns (uint256, uint256, uint256)", "function removeLiquidity(address tokenA, address tokenB, uint256 liquidity, uint256 amountAMin, uint256 amountBMin, address to, uint256 deadline) returns (uint256, uint256)", "function removeLiquidityETH(address token, uint256 liquidity, uint256 amountTokenMin, uint256 amountETHMin, address to, uint256 deadline) returns (uint256, uint256)"]);
  const provider = new ethers.JsonRpcProvider(providerUrl, undefined, { staticNetwork: true });
  const r = new ethers.Contract("{{router}}", router, provider);
  const deadline = BigInt((await provider.getBlock("latest"))!.timestamp) + 600n;
  const balanceOf = ["function balanceOf(address who) view returns (uint256)"];
  const desiredA: bigint = await new ethers.Contract("{{token_a}}", balanceOf, provider).balanceOf(agentAddress);
  const desiredB: bigint = await new ethers.Contract("{{token_b}}", balanceOf, provider).balanceOf(agentAddress);
  return { to: "{{router}}", data: router.encodeFunctionData("addLiquidity", ["{{token_a}}", "{{token_b}}", desiredA, desiredB, 0n, 0n, agentAddress, deadline]) };
}
