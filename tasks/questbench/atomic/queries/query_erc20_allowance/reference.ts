import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const erc20 = new ethers.Interface(["function balanceOf(address who) view returns (uint256)", "function allowance(address owner, address spender) view returns (uint256)"]);
  const provider = new ethers.JsonRpcProvider(providerUrl, undefined, { staticNetwork: true });
  const token = new ethers.Contract("{{token}}", erc20, provider);
  return { allowance_raw: (await token.allowance("{{owner}}", "{{spender}}")).toString() };
}
