import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const pool = new ethers.Interface(["function deposit(uint256 amount)", "function withdraw(uint256 amount)", "function harvest()", "function emergencyWithdraw()", "function userInfo(address user) view returns (uint256, uint256, uint256)"]);
  return { to: "{{pool}}", data: pool.encodeFunctionData("emergencyWithdraw", []) };
}
