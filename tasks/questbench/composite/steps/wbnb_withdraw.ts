import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const wbnb = new ethers.Interface(["function deposit() payable", "function withdraw(uint256 wad)"]);
  return { to: "{{wbnb}}", data: wbnb.encodeFunctionData("withdraw", [ethers.parseEther("{{amount}}")]) };
}
