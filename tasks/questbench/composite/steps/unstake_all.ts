import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const pool = new ethers.Interface(["function deposit(uint256 amount)", "function withdraw(uint256 amount)", "function harvest()", "function emergencyWithdraw()", "function userInfo(address user) view returns (uint256, uint256, uint256)"]);
  const provider = new ethers.JsonRpcProvider(providerUrl, undefined, { staticNetwork: true });
  const [staked] = await new ethers.Contract("{{pool}}", pool, provider).userInfo(agentAddress);
  return { to: "{{pool}}", data: pool.encodeFunctionData("withdraw", [staked]) };
}
