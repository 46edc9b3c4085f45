import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const erc20 = new ethers.Interface(["function transfer(address to, uint256 amount) returns (bool)", "function approve(address spender, uint256 amount) returns (bool)", "function transferFrom(address from, address to, uint256 amount) returns (bool)", "function balanceOf(address who) view returns (uint256)"]);
  return { to: "{{token}}", data: erc20.encodeFunctionData("transferFrom", ["{{from}}", agentAddress, ethers.parseUnits("{{amount}}", 18)]) };
}
