import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const box = new ethers.Interface(["function donate() payable", "function withdraw()"]);
  return { to: "0x55d398326f99059fF775485246999027B3197955", data: box.encodeFunctionData("donate", []), value: ethers.parseEther("{{amount}}") };
}
