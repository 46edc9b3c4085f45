import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const router = new ethers.Interface(["function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline) payable returns (uint256[])", "function swapExactTokensForETH(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[])", "function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[])", "function swapTokensForExactTokens(uint256 amountOut, uint256 amountInMax, address[] path, address to, uint256 deadline) returns (uint256[])", "function getAmountsOut(uint256 amountIn, address[] path) view returns (uint256[])", "function getAmountsIn(uint256 amountOut, address[] path) view returns (uint256[])"]);
  const provider = new ethers.JsonRpcProvider(providerUrl, undefined, { staticNetwork: true });
  const r = new ethers.Contract("{{router}}", router, provider);
  const deadline = BigInt((await provider.getBlock("latest"))!.timestamp) + 600n;
  const amountIn = 2n * ethers.parseUnits("{{amount_in}}", 18);
  const path = ["{{token}}", "{{token_out}}"];
  const quoted: bigint[] = await r.getAmountsOut(amountIn, path);
  const minOut = quoted[quoted.length - 1] * 95n / 100n;
  return { to: "{{router}}", data: router.encodeFunctionData("swapExactTokensForTokens", [amountIn, minOut, path, agentAddress, deadline]) };
}
