import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const erc20 = new ethers.Interface(["function transfer(address to, uint256 amount) returns (bool)", "function approve(address spender, uint256 amount) returns (bool)", "function transferFrom(address from, address to, uint256 amount) returns (bool)", "function increaseAllowance(address spender, uint256 added) returns (bool)", "function decreaseAllowance(address spender, uint256 subtracted) returns (bool)", "function balanceOf(address who) view returns (uint256)", "function allowance(address owner, address spender) view returns (uint256)"]);
  return { to: "{{token}}", data: erc20.encodeFunctionData("approve", ["{{spender}}", ethers.parseUnits("{{amount}}", 18) * 10n]) };
}
