import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const erc20 = new ethers.Interface(["function transfer(address to, uint256 amount) returns (bool)", "function approve(address spender, uint256 amount) returns (bool)", "function transferFrom(address from, address to, uint256 amount) returns (bool)", "function balanceOf(address who) view returns (uint256)"]);
  // {{percent}} % of the stated holding (not of what is left after earlier transfers)
  const amount = ethers.parseUnits("{{total}}", 18) * {{percent}}n / 100n;
  return { to: "{{token}}", data: erc20.encodeFunctionData("transfer", ["{{to}}", amount]) };
}
