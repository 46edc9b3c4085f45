import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const provider = new ethers.JsonRpcProvider(providerUrl, undefined, { staticNetwork: true });
  const pool = new ethers.Contract("{{pool}}", ["function userInfo(address user) view returns (uint256, uint256, uint256)", "function pendingReward(address user) view returns (uint256)", "function getUserInfo(address user) view returns (uint256, uint256)"], provider);
  return { pending_rewards: ethers.formatUnits(await pool.pendingReward("{{user}}"), 18) };
}
