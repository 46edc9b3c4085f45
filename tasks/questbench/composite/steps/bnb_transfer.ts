import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  return { to: "{{to}}", value: ethers.parseEther("{{amount}}") };
}
