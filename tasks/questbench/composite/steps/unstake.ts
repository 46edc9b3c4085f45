import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const pool = new ethers.Interface(["function deposit(uint256 amount)", "function withdraw(uint256 amount)", "function harvest()", "function emergencyWithdraw()"]);
  return { to: "{{pool}}", data: pool.encodeFunctionData("withdraw", [ethers.parseUnits("{{amount}}", 18)]) };
}
