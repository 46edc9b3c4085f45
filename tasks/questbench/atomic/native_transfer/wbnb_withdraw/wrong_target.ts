import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const wbnb = new ethers.Interface(["function deposit() payable", "function withdraw(uint256 wad)", "function transfer(address to, uint256 value) returns (bool)"]);
  return { to: "0x55d398326f99059fF775485246999027B3197955", data: wbnb.encodeFunctionData("withdraw", [ethers.parseEther("{{amount}}")]) };
}
