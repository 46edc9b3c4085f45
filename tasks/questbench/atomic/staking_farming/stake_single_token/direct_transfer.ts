import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const erc20 = new ethers.Interface(["function transfer(address to, uint256 amount) returns (bool)", "function approve(address spender, uint256 amount) returns (bool)"]);
  return { to: "{{token}}", data: erc20.encodeFunctionData("transfer", ["{{pool}}", ethers.parseUnits("{{stake_amount}}", 18)]) };
}
