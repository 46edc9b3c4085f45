import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const wbnb = new ethers.Interface(["function deposit() payable", "function withdraw(uint256 wad)"]);
  return { to: "{{wbnb}}", value: ethers.parseEther("{{amount}}"), data: wbnb.encodeFunctionData("deposit", []) };
}
