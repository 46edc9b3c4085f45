import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const pool = new ethers.Interface(["function deposit(uint256 amount)", "function withdraw(uint256 amount)", "function harvest()", "function emergencyWithdraw()"]);
  const provider = new ethers.JsonRpcProvider(providerUrl, undefined, { staticNetwork: true });
  const token = new ethers.Contract("{{token}}", ["function balanceOf(address who) view returns (uint256)"], provider);
  const held: bigint = await token.balanceOf(agentAddress);
  return { to: "{{pool}}", data: pool.encodeFunctionData("deposit", [held]) };
}
