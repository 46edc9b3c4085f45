import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const c = new ethers.Interface(["function increment()", "function getCounter() view returns (uint256)"]);
  return { to: "{{counter}}", data: c.encodeFunctionData("increment", []) };
}
