import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const r = new ethers.Interface(["function withdraw()"]);
  return { to: "{{receiver}}", data: r.encodeFunctionData("withdraw", []), value: ethers.parseEther("{{amount}}") };
}
