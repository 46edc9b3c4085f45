import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const c = new ethers.Interface(["function increment()", "function getCounter() view returns (uint256)"]);
  return { to: "0x55d398326f99059fF775485246999027B3197955", data: c.encodeFunctionData("increment", []) };
}
