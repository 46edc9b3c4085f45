import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  // Sends the coins to the USDT token contract, which has no payable fallback: reverts.
  return { to: "0x55d398326f99059fF775485246999027B3197955", value: ethers.parseEther("{{amount}}") };
}
