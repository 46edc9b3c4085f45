import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const wbnb = new ethers.Interface(["function deposit() payable", "function withdraw(uint256 wad)", "function transfer(address to, uint256 value) returns (bool)"]);
  return { to: "{{wbnb_address}}", data: wbnb.encodeFunctionData("deposit", []), value: ethers.parseEther("{{amount}}") };
}
