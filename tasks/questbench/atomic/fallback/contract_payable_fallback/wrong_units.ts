import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  return { to: "{{receiver}}", value: ethers.parseUnits("{{amount}}", "gwei") };
}
