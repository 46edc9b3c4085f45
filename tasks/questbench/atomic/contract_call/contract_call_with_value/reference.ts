import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const box = new ethers.Interface(["function donate() payable", "function withdraw()"]);
  return { to: "{{box}}", data: box.encodeFunctionData("donate", []), value: ethers.parseEther("{{amount}}") };
}
